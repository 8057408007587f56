/// How to run the local feature service.
///
/// A plain value the CLI (or a test) fills in; the library never reads the environment.
public struct LocalFeatureServerConfiguration: Sendable {
    /// Address to listen on. Default `127.0.0.1` (loopback only).
    public var host: String = "127.0.0.1"
    /// Port to listen on; `0` (the default) picks a free ephemeral port, reported in ``LocalFeatureServerEndpoint``.
    public var port: Int = 0
    /// SQLite file holding the data. `nil` (the default): a temporary file, deleted when the server stops. An
    /// existing file is reopened with its rows.
    public var databasePath: String? = nil
    /// The built-in dataset to serve, such as `parks`. Default `parks`.
    public var dataset: String = "parks"
    /// Most features one query answers (`maxRecordCount` in the metadata). Default 2000. Keep it ≥ 200: the
    /// `arcgis` Python client fetches in chunks of 200 object IDs without paging inside a chunk.
    public var maxRecordCount: Int = 2000
    /// Most features one query with `resultType=standard` answers (`standardMaxRecordCount`). Default 32,000.
    public var standardMaxRecordCount: Int = 32_000
    /// Most features one query with `resultType=tile` (a map tile) answers (`tileMaxRecordCount`). Default 8,000.
    public var tileMaxRecordCount: Int = 8_000
    /// The services to host: dataset names, or paths of dataset files (`Scenarios/datasets`). Empty (the default):
    /// the single ``dataset``.
    public var datasets: [String] = []
    /// Rows to generate in every layer whose dataset has a `generator` (`serve --rows N`); nil (the default): the
    /// dataset's own count.
    public var generatedRows: Int? = nil
    /// Token security (`--users`). Default: off, every resource is public.
    public var auth: Auth = Auth()
    /// Injected faults and latency (`--fault`, `--latency`, or `POST /arcgis/admin/faults`). Default: none.
    package var faults: Faults = Faults()
    /// Request size limits. Default: 64 MiB per request body.
    package var limits: Limits = Limits()
    /// HTTPS (`--tls-cert`/`--tls-key` or `--tls-self-signed`). `nil` (the default): plain HTTP.
    public var tls: TLS? = nil
    /// Which web pages and host names may reach the service (`--allow-origin`, `--allow-host`). Default: only the
    /// server's own origin, and on loopback only local names.
    package var browser: BrowserPolicy = BrowserPolicy()
    /// Idle timeout, connection cap and shutdown grace period. Default: 60 s, from the open-file limit, 10 s.
    public var connections: Connections = Connections()
    /// Where requests, their durations and injected faults are counted by operation (`serve --metrics-listen`).
    /// Default: nowhere.
    package var metrics: ServerMetrics? = nil

    /// A configuration; every parameter defaults to the documented property default.
    public init(host: String = "127.0.0.1", port: Int = 0, databasePath: String? = nil, dataset: String = "parks", maxRecordCount: Int = 2000) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.dataset = dataset
        self.maxRecordCount = maxRecordCount
    }
}

extension LocalFeatureServerConfiguration {
    /// The three record limits, by `resultType`.
    var recordLimits: RecordLimits {
        RecordLimits(maxRecordCount: maxRecordCount, standardMaxRecordCount: standardMaxRecordCount, tileMaxRecordCount: tileMaxRecordCount)
    }

    /// Whether `host` is a loopback address or name (`localhost`, `::1`, a dotted address in `127.0.0.0/8`): a
    /// server listening there is reachable from this machine only.
    package static func isLoopback(_ host: String) -> Bool {
        var lowered = host.lowercased()
        if lowered.hasPrefix("[") && lowered.hasSuffix("]") { lowered = String(lowered.dropFirst().dropLast()) }
        return lowered == "localhost" || lowered == "::1" || isLoopbackIPv4(lowered)
    }

    /// Whether `name` is a dotted IPv4 address in 127.0.0.0/8 (not a name such as `127.0.0.1.evil.example`).
    static func isLoopbackIPv4(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}

/// Where a running local feature service listens.
public struct LocalFeatureServerEndpoint: Sendable, Hashable {
    /// The host it was bound to.
    public let host: String
    /// The bound port (the real one when the configuration asked for port 0).
    public let port: Int
    /// Names of the hosted services (e.g. `["parks"]`).
    public let serviceNames: [String]
    /// The SQLite file the data lives in (a temporary file unless one was configured).
    public let databasePath: String
    /// `https` when the server listens with TLS, otherwise `http`.
    public let scheme: String
    /// The PEM certificate the server presents over HTTPS (the generated one with
    /// ``LocalFeatureServerConfiguration/TLS/Certificate/selfSigned``, deleted when the server stops); nil over HTTP.
    public let certificatePath: String?

    /// An endpoint (made by the server; public for tests and fakes).
    package init(host: String, port: Int, serviceNames: [String], databasePath: String, scheme: String = "http", certificatePath: String? = nil) {
        self.host = host
        self.port = port
        self.serviceNames = serviceNames
        self.databasePath = databasePath
        self.scheme = scheme
        self.certificatePath = certificatePath
    }

    /// `http(s)://host:port/arcgis`: the portal and server root the ArcGIS API for Python connects to.
    public var siteURL: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart):\(port)/arcgis"
    }

    /// `http(s)://host:port/arcgis/rest/services`.
    public var rootURL: String {
        "\(siteURL)/rest/services"
    }

    /// `…/rest/services/<name>/FeatureServer`.
    public func serviceURL(_ name: String) -> String {
        "\(rootURL)/\(name)/FeatureServer"
    }
}
