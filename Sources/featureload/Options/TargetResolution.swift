import BatchApply
import FeatureServiceClient
import Foundation
import LoadRunner
import LocalFeatureServer

/// Merges the command line with what a scenario file or an apply journal says into ``TargetSettings``: the command
/// line wins.
enum TargetResolution {
    /// The settings of `run` and `validate`: the scenario file's target, `auth:` and `tls:`, under the command line.
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
                location = .url(try serviceURL(targetOverride, option: "--target"))
            }
        }
        var fileAuthentication: TargetSettings.Authentication?
        if let auth = plan.auth {
            if let token = auth.token {
                fileAuthentication = .token(token)
            } else if let username = auth.username, let password = auth.password {
                fileAuthentication = .credentials(username: username, password: password, tokenURL: options.tokenURL ?? auth.tokenURL)
            }
        }
        var settings = try resolve(
            location, options: options, variables: (options.tokenEnv, options.usernameEnv, options.passwordEnv),
            tokenURL: options.tokenURL ?? plan.auth?.tokenURL, otherwise: fileAuthentication, caFile: plan.tls?.caFile,
            insecure: plan.tls?.insecure == true, requestTimeout: plan.requestTimeout, environment: environment)
        if case .local(let dataset, let dataPath) = location {
            // Refused here as validate refuses it: naming the key, before anything starts.
            do {
                _ = try DatasetCatalog.resolve(dataset, workingDirectory: FileManager.default.currentDirectoryPath)
            } catch {
                throw TargetError("\(file): local.dataset: \(UserMessage.describe(error))")
            }
            settings.authentication = nil
            settings.localConfiguration = try LocalServiceSettings.configuration(plan.local, dataset: dataset, dataPath: dataPath, file: file)
            settings.localNotes = LocalServiceSettings.note(plan.local).map { [$0] } ?? []
        }
        settings.maxConnections =
            plan.isSequential
            ? max(plan.scenarios.map(\.vus).max() ?? 1, 1)
            : max(plan.scenarios.reduce(0) { $0 + $1.vus }, 1)
        return settings
    }

    /// The settings of `apply` and `verify`: `to` is `local` or a `…/FeatureServer` URL; the command line's
    /// authentication and TLS options, else the journal's record of them (environment variable names, CA file).
    /// - Throws: ``TargetError`` naming the option to fix.
    static func settings(
        to: String, dataset: String, options: TargetOptions, recorded: JournalHeader.Access? = nil, concurrency: Int,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> TargetSettings {
        let location: TargetSettings.Location =
            to == "local" ? .local(dataset: dataset, dataPath: options.data) : .url(try serviceURL(to, option: "--to"))
        // The command line's variables, else the journal's; none for the embedded service.
        var variables: (token: String?, username: String?, password: String?) = (nil, nil, nil)
        if case .url = location {
            variables =
                options.tokenEnv != nil || options.usernameEnv != nil
                ? (options.tokenEnv, options.usernameEnv, options.passwordEnv) : (recorded?.tokenEnv, recorded?.usernameEnv, recorded?.passwordEnv)
        }
        var settings = try resolve(
            location, options: options, variables: variables, tokenURL: options.tokenURL ?? recorded?.tokenURL, otherwise: nil,
            caFile: recorded?.caFile, insecure: recorded?.insecure == true, requestTimeout: nil, environment: environment)
        settings.maxConnections = max(concurrency, 1)
        return settings
    }

    /// `text` without its query, fragment and trailing slashes: a URL as copied from a browser (`…/0/?f=pjson`).
    static func bareURL(_ text: String) -> String {
        var url = String(text.prefix { $0 != "?" && $0 != "#" })
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// `text` as a `…/FeatureServer` URL without its query, fragment or trailing slashes (``FeatureServerURL``'s rule).
    /// - Throws: ``TargetError`` naming `option` when it is not one, or when it carries a token.
    static func serviceURL(_ text: String, option: String) throws -> String {
        switch FeatureServerURL.normalized(text) {
        case .success(let url): return url
        case .failure(let invalid): throw TargetError("\(option): \(invalid.problem). Fix: \(invalid.fix)")
        }
    }

    /// Settings for `location` with authentication from the environment `variables` (else `otherwise`), TLS,
    /// the request timeout and the response limit: the command line's, else the given ones.
    private static func resolve(
        _ location: TargetSettings.Location, options: TargetOptions, variables: (token: String?, username: String?, password: String?),
        tokenURL: String?, otherwise: TargetSettings.Authentication?, caFile: String?, insecure: Bool, requestTimeout: Duration?,
        environment: [String: String]
    ) throws -> TargetSettings {
        var settings = TargetSettings(location: location)
        func variable(_ name: String, option: String) throws -> String {
            guard let value = environment[name], !value.isEmpty else {
                throw TargetError("\(option) \(name): the environment variable \(name) is not set. Fix: export \(name)=… before running")
            }
            return value
        }
        if let name = variables.token {
            settings.authentication = .token(try variable(name, option: "--token-env"))
        } else if let user = variables.username, let password = variables.password {
            settings.authentication = .credentials(
                username: try variable(user, option: "--username-env"), password: try variable(password, option: "--password-env"), tokenURL: tokenURL
            )
        } else {
            settings.authentication = otherwise
        }
        settings.tls.caFile = options.caFile ?? caFile
        if options.insecure || (insecure && options.caFile == nil) { settings.tls = .insecure }
        settings.requestTimeout = options.requestTimeout.flatMap(TargetOptions.duration) ?? requestTimeout ?? .seconds(60)
        if let size = options.maxResponseSize.flatMap(ServeCommand.byteCount) { settings.maximumResponseSize = size }
        return settings
    }
}
