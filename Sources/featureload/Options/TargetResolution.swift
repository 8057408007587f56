import FeatureServiceClient
import Foundation
import LoadRunner

/// Merges the command line and the scenario file into ``TargetSettings``: the command line wins.
enum TargetResolution {
    /// - Throws: ``TargetError`` naming the option or key to fix (a bad --target, an unset environment variable);
    ///   ``ScenarioFileError`` for the file's `local:` faults that do not parse.
    static func settings(
        plan: ScenarioPlan, file: String = "", targetOverride: String?, options: TargetOptions,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> TargetSettings {
        var location: TargetSettings.Location
        switch plan.target {
        case .local(let dataset): location = .local(dataset: dataset, dataPath: options.data)
        case .url(let url): location = .url(url)
        }
        if let targetOverride {
            if targetOverride == "local" {
                if case .url = location { location = .local(dataset: "parks", dataPath: options.data) }
            } else {
                var url = targetOverride
                while url.hasSuffix("/") { url.removeLast() }
                guard url.lowercased().hasPrefix("http"), url.lowercased().hasSuffix("/featureserver") else {
                    throw TargetError(
                        "--target: '\(targetOverride)' is not `local` or a …/FeatureServer URL. Fix: e.g. --target https://host/arcgis/rest/services/Parks/FeatureServer")
                }
                location = .url(url)
            }
        }
        var settings = TargetSettings(location: location)
        func variable(_ name: String, option: String) throws -> String {
            guard let value = environment[name], !value.isEmpty else {
                throw TargetError("\(option) \(name): the environment variable \(name) is not set. Fix: export \(name)=… before running")
            }
            return value
        }
        if let name = options.tokenEnv {
            settings.authentication = .token(try variable(name, option: "--token-env"))
        } else if let user = options.usernameEnv, let password = options.passwordEnv {
            settings.authentication = .credentials(
                username: try variable(user, option: "--username-env"), password: try variable(password, option: "--password-env"),
                tokenURL: options.tokenURL ?? plan.auth?.tokenURL)
        } else if let auth = plan.auth {
            if let token = auth.token {
                settings.authentication = .token(token)
            } else if let username = auth.username, let password = auth.password {
                settings.authentication = .credentials(username: username, password: password, tokenURL: options.tokenURL ?? auth.tokenURL)
            }
        }
        if case .local(let dataset, let dataPath) = location {
            settings.authentication = nil
            settings.localConfiguration = try LocalServiceSettings.configuration(plan.local, dataset: dataset, dataPath: dataPath, file: file)
            settings.localNotes = LocalServiceSettings.note(plan.local).map { [$0] } ?? []
        }
        settings.tls.caFile = options.caFile ?? plan.tls?.caFile
        if options.insecure || (plan.tls?.insecure == true && options.caFile == nil) {
            settings.tls = .insecure
        }
        settings.requestTimeout = options.requestTimeout.flatMap(TargetOptions.duration) ?? plan.requestTimeout ?? .seconds(60)
        if let size = options.maxResponseSize.flatMap(ServeCommand.byteCount) { settings.maximumResponseSize = size }
        settings.maxConnections = plan.isSequential
            ? max(plan.scenarios.map(\.vus).max() ?? 1, 1)
            : max(plan.scenarios.reduce(0) { $0 + $1.vus }, 1)
        return settings
    }
}
