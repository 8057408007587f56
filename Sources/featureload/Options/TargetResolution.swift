import FeatureServiceClient
import Foundation
import BatchApply
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

extension TargetResolution {
    /// The settings of `apply` and `verify`: `to` is `local` or a `…/FeatureServer` URL; the command line's
    /// authentication and TLS options, else the journal's record of them (environment variable names, CA file).
    /// - Throws: ``TargetError`` naming the option to fix.
    static func settings(
        to: String, dataset: String, options: TargetOptions, recorded: JournalHeader.Access? = nil, concurrency: Int,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> TargetSettings {
        var location: TargetSettings.Location
        if to == "local" {
            location = .local(dataset: dataset, dataPath: options.data)
        } else {
            var url = to
            while url.hasSuffix("/") { url.removeLast() }
            guard url.lowercased().hasPrefix("http"), url.lowercased().hasSuffix("/featureserver") else {
                throw TargetError(
                    "--to: '\(to)' is not `local` or a …/FeatureServer URL. Fix: e.g. --to https://host/arcgis/rest/services/Parks/FeatureServer")
            }
            location = .url(url)
        }
        var settings = TargetSettings(location: location)
        func variable(_ name: String, option: String) throws -> String {
            guard let value = environment[name], !value.isEmpty else {
                throw TargetError("\(option) \(name): the environment variable \(name) is not set. Fix: export \(name)=… before running")
            }
            return value
        }
        let tokenEnv = options.tokenEnv ?? (options.usernameEnv == nil ? recorded?.tokenEnv : nil)
        let usernameEnv = options.usernameEnv ?? (options.tokenEnv == nil ? recorded?.usernameEnv : nil)
        let passwordEnv = options.passwordEnv ?? (options.tokenEnv == nil ? recorded?.passwordEnv : nil)
        if case .url = location {
            if let tokenEnv {
                settings.authentication = .token(try variable(tokenEnv, option: "--token-env"))
            } else if let usernameEnv, let passwordEnv {
                settings.authentication = .credentials(
                    username: try variable(usernameEnv, option: "--username-env"), password: try variable(passwordEnv, option: "--password-env"),
                    tokenURL: options.tokenURL ?? recorded?.tokenURL)
            }
        }
        settings.tls.caFile = options.caFile ?? recorded?.caFile
        if options.insecure || (recorded?.insecure == true && options.caFile == nil) { settings.tls = .insecure }
        settings.requestTimeout = options.requestTimeout.flatMap(TargetOptions.duration) ?? .seconds(60)
        if let size = options.maxResponseSize.flatMap(ServeCommand.byteCount) { settings.maximumResponseSize = size }
        settings.maxConnections = max(concurrency, 1)
        return settings
    }
}
