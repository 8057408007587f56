import ArgumentParser
import Foundation
import LocalFeatureServer
import Logging
import Prometheus

/// `featureload serve`: runs the local ArcGIS-REST-compatible feature service until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the local ArcGIS-REST-compatible feature service (SQLite) until interrupted.",
        discussion: """
            Serves one or more datasets as ArcGIS feature services over HTTP: the services directory \
            (/arcgis/rest/services), the service and layer documents, query and applyEdits, answering JSON and \
            ArcGIS error envelopes (HTTP 200). On start it prints one line per service to standard output, e.g.
            featureload serve: listening on http://127.0.0.1:8080/arcgis/rest/services/parks/FeatureServer

            Ctrl-C (SIGINT) or SIGTERM stops it gracefully: requests in flight finish and the database is closed intact.

            --port: the TCP port; 0 (the default) picks a free one, shown in the printed URL.

            --host: the address to listen on (default 127.0.0.1). The service has no authentication, so any other \
            address lets anyone who can reach it read and edit the data; a warning is printed.

            --data: the SQLite file. A new file is created and seeded with the dataset; an existing one is reopened \
            with its rows (it must hold the same dataset). With several --dataset options it is a directory holding \
            one <service>.sqlite per service. Without --data temporary files are used and deleted on exit.

            --dataset PATH|NAME (repeatable: one service each): a dataset file (a path containing '/' or ending in \
            .json), or a NAME looked up as Scenarios/datasets/NAME.json under the working directory, then among the \
            built-in datasets (copies of those files, so the binary works from any directory): parks (national parks \
            → species, one-to-many composite), parkboundaries (polygons with holes, and trails as polylines), \
            birdnests (contingent values), servicerequests (requests ← comments, \
            one-to-many simple), ownerscars (one-to-one), supplierproducts (many-to-many through a relationship \
            table), customerorders (zero-or-one-to-many, nullable key). Default: parks. A malformed file is reported \
            with every problem: the file, the JSON path of the field, and the fix.

            --rows N: generate N seeded rows in every layer whose dataset has a "generator" (all built-in datasets \
            do), after the seed rows; foreign keys point at existing origins. Only when the database is created.

            --max-record-count: the most features one query returns (default 2000). Keep it at least 200: the \
            arcgis Python client fetches 200 object IDs at a time without paging.

            --users FILE: token security. Every resource except /arcgis/rest/info needs a token from \
            POST /arcgis/tokens/generateToken (username, password, expiration in minutes: default 60, at most 1440), \
            sent as X-Esri-Authorization: Bearer, Authorization: Bearer or a token parameter. Without one: error 499; \
            with a wrong or expired one: 498 (HTTP 200 with the envelope, or the real status with \
            --token-errors-http-status). The file is YAML ("users:" then "- username: qa" / "password: secret" \
            entries, or "qa: secret" lines) or JSON ({"users":[{"username":"qa","password":"secret"}]}).

            --fault, --latency, --faults, --fault-seed: fault injection for reliability tests. KIND is http500, \
            http503, http429 (retryAfter=S), arcgisError500, arcgisError503 (HTTP 200 error bodies), editFailure \
            (RATE per edit inside applyEdits), dropBeforeHandler, dropAfterCommit (the connection closes without an \
            answer), truncatedResponse, stall (seconds=S). Request-level rates are exclusive and add up to at most 1. \
            Example: --fault http503:0.05 --fault editFailure:0.01@applyEdits --latency lognormal:20,0.5. Answers \
            that carry a fault have an X-Featureload-Fault header, and each is logged at notice level. While running, \
            GET/POST /arcgis/admin/faults reads or replaces the settings (JSON) and GET /arcgis/admin/stats counts \
            requests and faults by kind (--no-admin turns both off).

            --tls-cert FILE --tls-key FILE, or --tls-self-signed: serve HTTPS instead of HTTP on the port (TLS 1.2+; \
            HTTP/2 and HTTP/1.1 offered by ALPN). The files are PEM: the certificate (chain, leaf first) and its \
            unencrypted private key. \
            --tls-self-signed generates an EC P-256 certificate for localhost, 127.0.0.1 and ::1 (and --host) with the \
            openssl command, valid 30 days, kept in a temporary directory (path printed on standard error) and deleted \
            on exit. Clients must skip verification or trust that file. With HTTPS the server also answers a minimal \
            portal (/arcgis/sharing/rest, /arcgis/sharing/rest/info, /arcgis/sharing/rest/portals/self), so that the \
            ArcGIS API for Python connects with GIS("https://127.0.0.1:PORT/arcgis", verify_cert=False); the portal \
            answers over plain HTTP too, but that client always rewrites a portal URL to https.

            --metrics-listen HOST:PORT: serve Prometheus metrics at http://HOST:PORT/metrics (a listener of its own; \
            port 0 picks a free one, printed as "metrics: URL"): featureload_server_requests_total and \
            featureload_server_request_duration_seconds by operation and status, and \
            featureload_server_faults_injected_total by operation and fault, to set beside a run's own metrics.

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

    @Option(help: ArgumentHelp("Dataset to serve: a dataset file path or a name (repeatable).", valueName: "path|name"))
    var dataset: [String] = []

    @Option(help: ArgumentHelp("Generated rows per layer with a generator (new databases only).", valueName: "n"))
    var rows: Int?

    @Option(help: "Most features one query returns.")
    var maxRecordCount: Int = 2000

    @Option(help: "Most features one query with resultType=standard returns.")
    var standardMaxRecordCount: Int = 32_000

    @Option(help: "Most features one query with resultType=tile (a map tile) returns.")
    var tileMaxRecordCount: Int = 8_000

    @Option(help: ArgumentHelp("Users file (YAML or JSON username/password pairs); turns on token security.", valueName: "file"))
    var users: String?

    @Flag(help: "Also send token errors as HTTP 498/499 (default: HTTP 200 with the ArcGIS envelope).")
    var tokenErrorsHttpStatus = false

    @Option(help: ArgumentHelp("Largest request body accepted, in bytes or with a K, M or G suffix (default 64M).", valueName: "size"))
    var maxRequestBody: String = "64M"

    @Option(
        help: ArgumentHelp(
            "Largest attachment or upload accepted, in bytes or with a K, M or G suffix (default 256M).", valueName: "size"))
    var maxAttachmentSize: String = "256M"

    @Option(help: ArgumentHelp("Inject a fault (repeatable): KIND:RATE[:retryAfter=S|seconds=S|path=PATTERN][@operation].", valueName: "spec"))
    var fault: [String] = []

    @Option(
        help: ArgumentHelp("Added latency in ms: fixed:MS, uniform:MIN,MAX, normal:MEAN,SD or lognormal:MEDIAN,SIGMA[@operation].", valueName: "spec")
    )
    var latency: String?

    @Option(help: ArgumentHelp("Fault settings file (the JSON of POST /arcgis/admin/faults); --fault and --latency add to it.", valueName: "file"))
    var faults: String?

    @Option(help: ArgumentHelp("Seed of the fault random stream (same seed, same faults).", valueName: "n"))
    var faultSeed: UInt64?

    @Flag(help: "Disable the /arcgis/admin/faults and /arcgis/admin/stats endpoints.")
    var noAdmin = false

    @Option(help: ArgumentHelp("PEM certificate (chain, leaf first) to serve HTTPS with; needs --tls-key.", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("Unencrypted PEM private key of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    @Flag(help: "Serve HTTPS with a self-signed certificate generated at start (needs the openssl command).")
    var tlsSelfSigned = false

    @Option(
        help: ArgumentHelp("Let web pages from this origin (scheme://host[:port], or * for any) call the service (repeatable).", valueName: "origin"))
    var allowOrigin: [String] = []

    @Option(help: ArgumentHelp("Accept this Host name besides the local ones when listening on loopback (repeatable).", valueName: "name"))
    var allowHost: [String] = []

    @Option(help: ArgumentHelp("Close a connection that completes no request part for this many seconds (idle or too slow).", valueName: "seconds"))
    var idleTimeout: Double = 60

    @Option(help: ArgumentHelp("Most connections open at once (default: the open-file limit less 128).", valueName: "n"))
    var maxConnections: Int?

    @Option(help: ArgumentHelp("On SIGTERM or SIGINT, cancel requests still running after this many seconds.", valueName: "seconds"))
    var shutdownGrace: Double = 10

    @Option(
        help: ArgumentHelp(
            "Serve Prometheus metrics (requests, durations and faults by operation) at http://HOST:PORT/metrics.", valueName: "host:port"))
    var metricsListen: String?

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if let metricsListen { _ = try MetricsEndpoint.address(metricsListen) }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535, got \(port)") }
        for (name, value) in [("max", maxRecordCount), ("standard-max", standardMaxRecordCount), ("tile-max", tileMaxRecordCount)] where value < 1 {
            throw ValidationError("--\(name)-record-count must be at least 1, got \(value)")
        }
        if let rows, rows < 0 { throw ValidationError("--rows must be 0 or more, got \(rows)") }
        try validateTLSOptions()
        guard idleTimeout > 0, idleTimeout.isFinite else { throw ValidationError("--idle-timeout must be more than 0 seconds, got \(idleTimeout)") }
        guard shutdownGrace >= 0, shutdownGrace.isFinite else {
            throw ValidationError("--shutdown-grace must be 0 seconds or more, got \(shutdownGrace)")
        }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections must be at least 1, got \(maxConnections)") }
    }

    func run() async throws {
        let logger = logging.makeLogger(label: "featureload.serve")
        if let warning = Self.exposureWarning(host: host, users: users != nil, tls: tlsCert != nil || tlsSelfSigned, admin: !noAdmin) {
            Self.write("featureload serve: warning: \(warning)\n", to: .standardError)
        }
        if maxRecordCount < 200 {
            Self.write(
                "featureload serve: warning: --max-record-count \(maxRecordCount) is below 200; the arcgis Python client will silently lose rows\n",
                to: .standardError
            )
        }
        var configuration = LocalFeatureServerConfiguration(
            host: host,
            port: port,
            databasePath: data,
            dataset: dataset.first ?? "parks",
            maxRecordCount: maxRecordCount
        )
        configuration.datasets = dataset
        configuration.generatedRows = rows
        configuration.standardMaxRecordCount = standardMaxRecordCount
        configuration.tileMaxRecordCount = tileMaxRecordCount
        try applySecurityAndFaultOptions(to: &configuration)
        configuration.tls = tlsSettings
        configuration.browser = LocalFeatureServerConfiguration.BrowserPolicy(allowedOrigins: allowOrigin, allowedHosts: allowHost)
        configuration.connections = LocalFeatureServerConfiguration.Connections(
            idleTimeout: .milliseconds(Int64(idleTimeout * 1000)), maximumConnections: maxConnections,
            shutdownGracePeriod: .milliseconds(Int64(shutdownGrace * 1000)))
        var metrics: MetricsEndpoint?
        if let metricsListen {
            let endpoint = try await MetricsEndpoint.start(listen: metricsListen, registry: PrometheusCollectorRegistry(), logger: logger)
            configuration.metrics = ServerMetrics(factory: MetricsEndpoint.factory(endpoint.registry))
            progress("metrics: \(endpoint.url)")
            metrics = endpoint
        }
        // A LocalFeatureServerError (unknown or malformed dataset, database, bind) propagates: ArgumentParser prints its description.
        let temporary = data == nil
        do {
            try await runLocalFeatureServer(configuration, logger: logger) { endpoint in
                for name in endpoint.serviceNames {
                    Self.write("featureload serve: listening on \(endpoint.serviceURL(name))\n", to: .standardOutput)
                }
                Self.write("featureload serve: data in \(endpoint.databasePath)\(temporary ? " (temporary)" : "")\n", to: .standardError)
                Self.write(Self.tlsNotice(endpoint, generated: tlsSelfSigned), to: .standardError)
            }
        } catch {
            await metrics?.stop(after: .zero)
            throw error
        }
        await metrics?.stop(after: .zero)
    }

    /// What a non-loopback listener exposes to anyone who can reach it, in one sentence; nil on loopback.
    static func exposureWarning(host: String, users: Bool, tls: Bool, admin: Bool) -> String? {
        guard !LocalFeatureServerConfiguration.isLoopback(host) else { return nil }
        var exposed: [String] = []
        if users {
            exposed.append(
                "data needs a token, but \(tls ? "tokens and passwords are protected by TLS" : "passwords and tokens cross the network in cleartext (add --tls-self-signed or --tls-cert)")"
            )
        } else {
            exposed.append("the service has no authentication: anyone who can reach it can read and edit its data (add --users)")
        }
        if admin {
            exposed.append(
                "the admin endpoints (/arcgis/admin/faults, /stats) can inject faults\(users ? " for anyone with a token" : "") (add --no-admin)")
        }
        return "listening on \(host), not loopback; " + exposed.joined(separator: "; ")
    }

    private static func write(_ text: String, to handle: FileHandle) {
        handle.write(Data(text.utf8))
    }
}
