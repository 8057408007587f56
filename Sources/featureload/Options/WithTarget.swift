import FeatureModel
import FeatureServiceClient
import Foundation
import LocalFeatureServer
import Logging

/// Errors of setting up a target, phrased for the command line.
struct TargetError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Connects to the target `settings` describe, runs `body`, and tears everything down (transport, embedded server).
///
/// For a live URL the transport carries the TLS settings and, when set, token authentication (a fixed token, or
/// generateToken with refresh). For `local` the embedded feature service starts in this process on 127.0.0.1, port 0.
/// - Throws: ``TargetError`` when the settings cannot be used (an unreadable CA file); errors of the embedded server's
///   start; whatever `body` throws; `CancellationError`.
func withTarget<T: Sendable>(
    _ settings: TargetSettings, serverLogger: Logger, _ body: @escaping @Sendable (ConnectedTarget) async throws -> T
) async throws -> T {
    if let caFile = settings.tls.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
        throw TargetError("--ca-file / tls.caFile: cannot read '\(caFile)'. Fix: give the path of a PEM file of CA certificates")
    }
    var configuration = CurlTransportConfiguration(maxConnections: max(settings.maxConnections, 1))
    configuration.requestTimeout = settings.requestTimeout
    configuration.maximumResponseSize = settings.maximumResponseSize
    configuration.tls = settings.tls
    return try await withCurlTransport(configuration: configuration) { transport in
        switch settings.location {
        case .url(let url):
            let authentication = try await makeAuthentication(settings.authentication, serviceURL: url, transport: transport)
            let service = FeatureService(url: url, transport: transport, authentication: authentication)
            var notes: [String] = []
            if settings.tls.isInsecure { notes.append("TLS certificates were not verified (--insecure)") }
            if let authentication {
                notes.append("authenticated with \(authentication.provider is StaticTokenProvider ? "a fixed token" : "generated tokens")")
            }
            return try await body(
                ConnectedTarget(
                    service: service, serviceURL: url, isLocal: false, dataset: nil, notes: notes, transport: transport,
                    authentication: authentication))
        case .local(let dataset, let dataPath):
            var configuration = settings.localConfiguration ?? LocalFeatureServerConfiguration(databasePath: dataPath, dataset: dataset)
            configuration.metrics = settings.localMetrics
            return try await withLocalFeatureServer(configuration, logger: serverLogger) { endpoint in
                // The service's name, not the dataset's reference (which may be a file's path).
                let url = endpoint.serviceURL(endpoint.serviceNames.first ?? dataset)
                let cores = ProcessInfo.processInfo.activeProcessorCount
                let note =
                    "embedded feature service in this process on \(endpoint.host):\(endpoint.port), SQLite \(dataPath ?? "temporary file"); "
                    + "it shared the machine's \(cores) cores with the load generator"
                let service = FeatureService(url: url, transport: transport)
                return try await body(
                    ConnectedTarget(
                        service: service, serviceURL: url, isLocal: true, dataset: dataset, notes: [note] + settings.localNotes, transport: transport,
                        authentication: nil))
            }
        }
    }
}

/// Token authentication for `settings`, or nil when the target is anonymous.
private func makeAuthentication(
    _ settings: TargetSettings.Authentication?, serviceURL: String, transport: CurlTransport
) async throws -> TokenAuthentication? {
    switch settings {
    case nil:
        return nil
    case .token(let token):
        return TokenAuthentication(provider: StaticTokenProvider(token))
    case .credentials(let username, let password, let tokenURL):
        let url: String
        if let tokenURL {
            url = tokenURL
        } else {
            url = await TokenURLDiscovery.discover(serviceURL: serviceURL, transport: transport)
        }
        let provider = GeneratedTokenProvider(
            tokenURL: url, credentials: .init(username: username, password: password), transport: transport)
        return TokenAuthentication(provider: provider)
    }
}

/// Finds a service's generateToken URL the way ArcGIS clients do: `rest/info`'s `authInfo.tokenServicesUrl`.
enum TokenURLDiscovery {
    /// The token URL advertised by the server of `serviceURL`, or the ArcGIS Server default when it says none.
    static func discover(serviceURL: String, transport: any HTTPTransport) async -> String {
        guard let infoURL = infoURL(for: serviceURL) else { return defaultTokenURL(for: serviceURL) }
        if let response = try? await transport.send(HTTPRequest(url: infoURL + "?f=json")), response.status == 200,
            let info = try? JSONDecoder().decode(RestInfo.self, from: Data(response.body)),
            let advertised = info.authInfo?.tokenServicesUrl, !advertised.isEmpty
        {
            return generateTokenURL(advertised)
        }
        return defaultTokenURL(for: serviceURL)
    }

    /// The generateToken endpoint of an advertised `tokenServicesUrl`. ArcGIS Server advertises the token service's
    /// root (`https://host/arcgis/tokens/`), to which clients append `generateToken`; a portal advertises the
    /// endpoint itself (`…/sharing/rest/generateToken`), which is kept.
    static func generateTokenURL(_ advertised: String) -> String {
        var url = advertised
        while url.hasSuffix("/") { url.removeLast() }
        if url.lowercased().hasSuffix("generatetoken") { return url }
        return url + "/generateToken"
    }

    /// `https://host/arcgis/rest/info` for `https://host/arcgis/rest/services/…`.
    static func infoURL(for serviceURL: String) -> String? {
        guard let range = serviceURL.range(of: "/rest/services", options: .caseInsensitive) else { return nil }
        return String(serviceURL[..<range.lowerBound]) + "/rest/info"
    }

    /// `https://host/arcgis/tokens/generateToken`.
    static func defaultTokenURL(for serviceURL: String) -> String {
        if let range = serviceURL.range(of: "/rest/services", options: .caseInsensitive) {
            return String(serviceURL[..<range.lowerBound]) + "/tokens/generateToken"
        }
        return serviceURL + "/../tokens/generateToken"
    }
}
