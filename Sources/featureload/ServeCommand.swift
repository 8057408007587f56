import ArgumentParser
import Foundation
import LocalFeatureServer
import Logging

/// `featureload serve`: runs the local ArcGIS-REST-compatible feature service until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the local ArcGIS-REST-compatible feature service (SQLite) until interrupted.",
        discussion: """
            Serves a built-in dataset as an ArcGIS feature service over HTTP: the services directory \
            (/arcgis/rest/services), the service and layer documents, query and applyEdits, answering JSON and \
            ArcGIS error envelopes. On start it prints one line per service:

              featureload serve: listening on http://127.0.0.1:PORT/arcgis/rest/services/parks/FeatureServer

            Ctrl-C (SIGINT) or SIGTERM stops it gracefully: requests in flight finish and the database is closed intact.

            Options:
              --port N            TCP port; 0 (the default) picks a free port, shown in the printed URL.
              --host ADDRESS      Address to listen on (default 127.0.0.1). Anything but loopback exposes the \
            service, which has no authentication, to the network; a warning is printed.
              --data PATH         SQLite file for the data. A new file is created and seeded; an existing file is \
            reopened with its rows (it must hold the same dataset). Without it a temporary file is used and deleted on exit.
              --dataset NAME      Built-in dataset to serve (default parks: layer 0 National Parks, table 1 Species).
              --max-record-count N   Most features one query returns (default 2000; keep at least 200 for the \
            arcgis Python client).
              --log-level LEVEL   trace, debug, info, notice, warning, error or critical (default info); debug also \
            logs rejected where clauses and other request errors.
            """
    )

    @Option(help: "TCP port to listen on; 0 picks a free port.")
    var port: Int = 0

    @Option(help: "Address to listen on; non-loopback addresses expose the unauthenticated service.")
    var host: String = "127.0.0.1"

    @Option(name: .customLong("data"), help: ArgumentHelp("SQLite database file (created and seeded if new); default: a temporary file.", valueName: "path"))
    var data: String?

    @Option(help: "Built-in dataset to serve.")
    var dataset: String = "parks"

    @Option(help: "Most features one query returns.")
    var maxRecordCount: Int = 2000

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535, got \(port)") }
        guard maxRecordCount >= 1 else { throw ValidationError("--max-record-count must be at least 1, got \(maxRecordCount)") }
        guard Logger.Level(rawValue: logLevel.lowercased()) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical; got '\(logLevel)'")
        }
    }

    func run() async throws {
        var logger = Logger(label: "featureload.serve")
        logger.logLevel = Logger.Level(rawValue: logLevel.lowercased()) ?? .info
        if !Self.isLoopback(host) {
            Self.write(
                "featureload serve: warning: listening on \(host), not loopback; the service has no authentication and anyone who can reach this address can read and edit its data\n",
                to: .standardError)
        }
        if maxRecordCount < 200 {
            Self.write("featureload serve: warning: --max-record-count \(maxRecordCount) is below 200; the arcgis Python client will silently lose rows\n", to: .standardError)
        }
        let configuration = LocalFeatureServerConfiguration(
            host: host, port: port, databasePath: data, dataset: dataset, maxRecordCount: maxRecordCount)
        // A LocalFeatureServerError (unknown dataset, database, bind) propagates: ArgumentParser prints its description.
        let temporary = data == nil
        try await runLocalFeatureServer(configuration, logger: logger) { endpoint in
            for name in endpoint.serviceNames {
                Self.write("featureload serve: listening on \(endpoint.serviceURL(name))\n", to: .standardOutput)
            }
            Self.write("featureload serve: data in \(endpoint.databasePath)\(temporary ? " (temporary)" : "")\n", to: .standardError)
        }
    }

    /// Whether `host` is a loopback address or name.
    static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        return lowered == "localhost" || lowered == "::1" || lowered == "[::1]" || lowered.hasPrefix("127.")
    }

    private static func write(_ text: String, to handle: FileHandle) {
        handle.write(Data(text.utf8))
    }
}
