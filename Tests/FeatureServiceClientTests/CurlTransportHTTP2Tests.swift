import FeatureModel
import FeatureServiceClient
import LocalFeatureServer
import Logging
import Synchronization
import Testing

/// HTTP/2 end to end: CurlTransport negotiating `h2` by ALPN with the local service's HTTPS listener, and
/// multiplexing concurrent requests over few connections; HTTP/1.1 still negotiated when asked for.
@Suite struct CurlTransportHTTP2Tests {
    /// Forwards to a transport and keeps the HTTP version of every response.
    final class VersionRecorder: HTTPTransport {
        let base: any HTTPTransport
        private let versions = Mutex<[HTTPVersion?]>([])

        init(_ base: any HTTPTransport) { self.base = base }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let response = try await base.send(request)
            versions.withLock { $0.append(response.httpVersion) }
            return response
        }

        /// The versions recorded so far, in completion order.
        var recorded: [HTTPVersion?] { versions.withLock { $0 } }
    }

    /// Runs `body` against an HTTPS local service on 127.0.0.1, port 0, with a fresh self-signed certificate,
    /// offering HTTP/2 unless `offersHTTP2` is false.
    static func withHTTPSServer<T: Sendable>(
        offersHTTP2: Bool = true, _ body: @Sendable (LocalFeatureServerEndpoint) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "featureload.test-server")
        logger.logLevel = .critical
        var configuration = LocalFeatureServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.tls = .init(certificate: .selfSigned, offersHTTP2: offersHTTP2)
        return try await withLocalFeatureServer(configuration, logger: logger, body)
    }

    /// A transport trusting the endpoint's generated certificate.
    static func configuration(
        _ endpoint: LocalFeatureServerEndpoint, _ version: CurlTransportConfiguration.HTTPVersionPolicy
    ) throws
        -> CurlTransportConfiguration
    {
        CurlTransportConfiguration(httpVersion: version, tls: .init(caFile: try #require(endpoint.certificatePath)))
    }

    /// Sends `count` concurrent GETs of the service description.
    /// - Returns: The responses' HTTP versions.
    static func burst(_ transport: CurlTransport, _ endpoint: LocalFeatureServerEndpoint, count: Int) async throws -> [HTTPVersion?] {
        let url = endpoint.serviceURL(endpoint.serviceNames[0]) + "?f=json"
        return try await withThrowingTaskGroup(of: HTTPVersion?.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let response = try await transport.send(HTTPRequest(url: url))
                    #expect(response.status == 200)
                    return response.httpVersion
                }
            }
            var versions: [HTTPVersion?] = []
            for try await version in group { versions.append(version) }
            return versions
        }
    }

    @Test("automatic negotiates HTTP/2 for a query and an applyEdits", .timeLimit(.minutes(1)))
    func queryAndApplyEditsOverHTTP2() async throws {
        try await Self.withHTTPSServer { endpoint in
            try await withCurlTransport(configuration: try Self.configuration(endpoint, .automatic)) { transport in
                let recorder = VersionRecorder(transport)
                let parks = FeatureService(url: endpoint.serviceURL(endpoint.serviceNames[0]), transport: recorder).layer(id: 0)
                let before = try await parks.query(FeatureQuery(outFields: ["*"], returnGeometry: false))
                #expect(!before.features.isEmpty)
                let added = try await parks.applyEdits(
                    LayerEdits(adds: [
                        Feature(attributes: ["name": "Arches", "state": "UT", "category": 1], geometry: .point(x: -109.59, y: 38.73))
                    ]))
                #expect(added.failures.isEmpty)
                let newId = try #require(added.addResults.first?.objectId)
                let after = try await parks.query(FeatureQuery(objectIds: [newId], outFields: ["*"]))
                #expect(after.features.first?.attributes["name"] == "Arches")
                #expect(recorder.recorded.count == 3)
                #expect(recorder.recorded.allSatisfy { $0 == .http2 }, "\(recorder.recorded)")
            }
        }
    }

    @Test("32 concurrent requests over HTTP/2 share far fewer connections than requests", .timeLimit(.minutes(1)))
    func multiplexing() async throws {
        try await Self.withHTTPSServer { endpoint in
            try await withCurlTransport(configuration: try Self.configuration(endpoint, .automatic)) { transport in
                let versions = try await Self.burst(transport, endpoint, count: 32)
                #expect(versions.count == 32)
                #expect(versions.allSatisfy { $0 == .http2 })
                let statistics = transport.statistics
                #expect(statistics.connectionsOpened >= 1)
                #expect(statistics.connectionsOpened <= 4, "\(statistics)")
            }
        }
    }

    @Test("http1_1 still negotiates HTTP/1.1 on the same listener, and concurrent requests open connections of their own", .timeLimit(.minutes(1)))
    func http1StillWorks() async throws {
        try await Self.withHTTPSServer { endpoint in
            try await withCurlTransport(configuration: try Self.configuration(endpoint, .http1_1)) { transport in
                let versions = try await Self.burst(transport, endpoint, count: 32)
                #expect(versions.count == 32)
                #expect(versions.allSatisfy { $0 == .http1_1 })
                // No multiplexing: concurrent requests need connections of their own.
                #expect(transport.statistics.connectionsOpened > 1)
            }
        }
    }

    @Test("a listener that does not offer HTTP/2 answers automatic with HTTP/1.1", .timeLimit(.minutes(1)))
    func http2NotOffered() async throws {
        try await Self.withHTTPSServer(offersHTTP2: false) { endpoint in
            try await withCurlTransport(configuration: try Self.configuration(endpoint, .automatic)) { transport in
                let response = try await transport.send(HTTPRequest(url: endpoint.rootURL + "?f=json"))
                #expect(response.status == 200)
                #expect(response.httpVersion == .http1_1)
            }
        }
    }
}
