import ArgumentParser
import LoadRunner

/// How a command reaches its feature service: authentication, TLS, timeouts and the embedded service's data file.
///
/// Shared by `run` and `apply`; the URL itself is the command's own option (`--target`, `--to`). Values given here
/// override the scenario file's `auth:` and `tls:` blocks. Secrets are read from environment variables named here,
/// never from the command line, so they stay out of shell history and process listings.
struct TargetOptions: ParsableArguments {
    @Option(
        name: .customLong("token-env"),
        help: ArgumentHelp("Environment variable holding an ArcGIS token for a live service.", valueName: "name"))
    var tokenEnv: String?

    @Option(
        name: .customLong("username-env"),
        help: ArgumentHelp(
            "Environment variable holding the user name to get tokens with (generateToken, refreshed before expiry).",
            valueName: "name"))
    var usernameEnv: String?

    @Option(
        name: .customLong("password-env"),
        help: ArgumentHelp("Environment variable holding the password of --username-env.", valueName: "name"))
    var passwordEnv: String?

    @Option(
        name: .customLong("token-url"),
        help: ArgumentHelp(
            "The generateToken URL; default: the service's rest/info tokenServicesUrl, else <host>/arcgis/tokens/generateToken.",
            valueName: "url"))
    var tokenURL: String?

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp("PEM file of certificate authorities to trust for https (e.g. `serve --tls-self-signed`'s).", valueName: "path"))
    var caFile: String?

    @Flag(name: .long, help: "Do not verify TLS certificates (test servers only; a warning is printed).")
    var insecure = false

    @Option(
        name: .customLong("request-timeout"),
        help: ArgumentHelp("Longest one HTTP request may take, e.g. 60s (default), 500ms, 2m.", valueName: "duration"))
    var requestTimeout: String?

    @Option(
        name: .customLong("max-response-size"),
        help: ArgumentHelp("Largest response body held in memory, e.g. 256M (default), 1G; larger ones fail the request.", valueName: "size"))
    var maxResponseSize: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "SQLite file for the embedded service (created if missing, kept afterwards). Default: run, a temporary file; apply, <input>.sqlite, which `serve --data` can serve afterwards.",
            valueName: "path"))
    var data: String?

    func validate() throws {
        if usernameEnv != nil && passwordEnv == nil || usernameEnv == nil && passwordEnv != nil {
            throw ValidationError("--username-env and --password-env go together; give both, or --token-env alone")
        }
        if tokenEnv != nil && usernameEnv != nil {
            throw ValidationError("give either --token-env or --username-env/--password-env, not both")
        }
        if let requestTimeout {
            _ = try DurationOption.parse(requestTimeout, option: "--request-timeout", examples: "30s, 500ms or 2m")
        }
        if let maxResponseSize, ServeCommand.byteCount(maxResponseSize).map({ $0 >= 1024 }) != true {
            throw ValidationError("--max-response-size must be a size of at least 1K, like 64M or 1G; got '\(maxResponseSize)'")
        }
        if insecure && caFile != nil {
            throw ValidationError("--insecure turns certificate checks off, so --ca-file would be ignored; give one of them")
        }
    }

    /// The duration written in `text` (`500ms`, `30s`, `2m`).
    static func duration(_ text: String) -> Duration? {
        guard let value = DurationText.parse(text), value > .zero else { return nil }
        return value
    }
}
