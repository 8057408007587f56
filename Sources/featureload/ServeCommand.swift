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
            ArcGIS error envelopes (HTTP 200). On start it prints one line per service to standard output, e.g.
            featureload serve: listening on http://127.0.0.1:8080/arcgis/rest/services/parks/FeatureServer

            Ctrl-C (SIGINT) or SIGTERM stops it gracefully: requests in flight finish and the database is closed intact.

            --port: the TCP port; 0 (the default) picks a free one, shown in the printed URL.

            --host: the address to listen on (default 127.0.0.1). The service has no authentication, so any other \
            address lets anyone who can reach it read and edit the data; a warning is printed.

            --data: the SQLite file. A new file is created and seeded with the dataset; an existing one is reopened \
            with its rows (it must hold the same dataset). Without --data a temporary file is used and deleted on exit.

            --dataset: the built-in dataset (default parks: layer 0 National Parks, points; table 1 Species, \
            related one-to-many, composite).

            --max-record-count: the most features one query returns (default 2000). Keep it at least 200: the \
            arcgis Python client fetches 200 object IDs at a time without paging.

            --log-level: diagnostics on standard error (default warning); debug also logs rejected where clauses \
            and other request errors.
            """
    )

    @Option(help: "TCP port to listen on; 0 picks a free port.")
    var port: Int = 0

    @Option(help: "Address to listen on; non-loopback addresses expose the unauthenticated service.")
    var host: String = "127.0.0.1"

    @Option(
        name: .customLong("data"),
        help: ArgumentHelp("SQLite database file (created and seeded if new); default: a temporary file.", valueName: "path")
    )
    var data: String?

    @Option(help: "Built-in dataset to serve.")
    var dataset: String = "parks"

    @Option(help: "Most features one query returns.")
    var maxRecordCount: Int = 2000

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535, got \(port)") }
        guard maxRecordCount >= 1 else { throw ValidationError("--max-record-count must be at least 1, got \(maxRecordCount)") }
    }

    func run() async throws {
        let logger = logging.makeLogger(label: "featureload.serve")
        if !Self.isLoopback(host) {
            Self.write(
                "featureload serve: warning: listening on \(host), not loopback; the service has no authentication and anyone who can reach this address can read and edit its data\n",
                to: .standardError
            )
        }
        if maxRecordCount < 200 {
            Self.write(
                "featureload serve: warning: --max-record-count \(maxRecordCount) is below 200; the arcgis Python client will silently lose rows\n",
                to: .standardError
            )
        }
        let configuration = LocalFeatureServerConfiguration(
            host: host,
            port: port,
            databasePath: data,
            dataset: dataset,
            maxRecordCount: maxRecordCount
        )
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
