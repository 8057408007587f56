import ArgumentParser
import Logging

/// The `--log-level` option of `run` and `validate`.
struct LoggingOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Diagnostics on standard error: trace, debug, info, notice, warning, error or critical.",
            valueName: "level"))
    var logLevel: String = "warning"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel.lowercased()) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical; got '\(logLevel)'")
        }
    }

    /// Sends logs to standard error at the chosen level and returns a logger labelled `label`.
    func makeLogger(label: String) -> Logger {
        let level = Logger.Level(rawValue: logLevel.lowercased()) ?? .warning
        LoggingSystem.bootstrap { name in
            var handler = StreamLogHandler.standardError(label: name)
            handler.logLevel = level
            return handler
        }
        return Logger(label: label)
    }

    /// The embedded server's logger for a command that logs with `logger`. The server's own log is for debugging
    /// it: at the default level its shutdown chatter after Ctrl-C (connections closed under it) would read like
    /// errors of the command, so below debug it logs only critical events. Failures to start are thrown, not logged.
    static func serverLogger(beside logger: Logger) -> Logger {
        var server = Logger(label: "featureload.serve")
        if logger.logLevel > .debug { server.logLevel = .critical }
        return server
    }
}
