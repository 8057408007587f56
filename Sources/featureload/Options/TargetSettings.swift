import FeatureServiceClient
import LocalFeatureServer

/// Everything needed to connect to a feature service, resolved from the command line and the scenario file.
struct TargetSettings: Sendable {
    /// Where the service is.
    enum Location: Sendable, Equatable {
        /// The embedded local service, started for the command, serving `dataset` from `dataPath` (nil: temporary).
        case local(dataset: String, dataPath: String?)
        /// A live `…/FeatureServer`.
        case url(String)
    }

    /// How requests authenticate.
    enum Authentication: Sendable {
        /// A fixed token.
        case token(String)
        /// A user name and password, exchanged for tokens at `tokenURL` (nil: discovered).
        case credentials(username: String, password: String, tokenURL: String?)
    }

    var location: Location
    var authentication: Authentication?
    var tls = CurlTransportConfiguration.TLS()
    var requestTimeout: Duration = .seconds(60)
    /// The largest response body the transport holds (`--max-response-size`).
    var maximumResponseSize = 256 << 20
    /// Connections the transport keeps (at least the concurrency of the load).
    var maxConnections = 64
    /// How the embedded service starts (rows, faults), for a `local` location; nil: its defaults.
    var localConfiguration: LocalFeatureServerConfiguration?
    /// Said in the report about the embedded service (the faults it injects).
    var localNotes: [String] = []
    /// Where the embedded service counts its requests and faults (`run --metrics-listen`: beside the run's own).
    var localMetrics: ServerMetrics?
}

/// A connected target, handed to a command's body by ``withTarget(_:serverLogger:_:)``.
struct ConnectedTarget: Sendable {
    /// The service, with authentication and the transport set up; metadata not loaded yet.
    let service: FeatureService
    /// The `…/FeatureServer` URL.
    let serviceURL: String
    /// True for the embedded local service.
    let isLocal: Bool
    /// The dataset the embedded service serves, when local.
    let dataset: String?
    /// How the target ran, for reports (e.g. that the embedded service shared the generator's cores).
    let notes: [String]
    /// The transport, for commands that need more services or raw requests.
    let transport: CurlTransport
    /// The token authentication the service uses, if any (for services a command builds over another transport).
    let authentication: TokenAuthentication?
}
