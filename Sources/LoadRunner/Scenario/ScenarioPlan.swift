/// A validated scenario file: what to run, against what, and which gates decide pass or fail.
///
/// The format follows k6's names where they exist (`scenarios`, `executor`, `vus`, `iterations`,
/// `maxDuration`, `thresholds`), so later executors and operations extend it without breaking old files.
public struct ScenarioPlan: Sendable, Hashable {
    /// The format version: 1 runs scenarios one after another; 2 runs them concurrently, each from its
    /// `startTime` (or after `startAfter`), as k6 does.
    public var version: Int
    public var name: String
    public var description: String?
    public var target: Target
    /// Seed for generated payloads; the same seed gives the same features.
    public var seed: UInt64
    /// Scenarios in file order.
    public var scenarios: [ScenarioSpec]
    /// k6 thresholds on the run's metrics.
    public var thresholds: [ThresholdSpec] = []
    /// How to authenticate with a live target (secrets come from `${ENV}` interpolation).
    public var auth: Auth?
    /// TLS settings for a live https target.
    public var tls: TLS?
    /// The longest one HTTP request may take.
    public var requestTimeout: Duration?
    /// Rows and faults of the embedded service (a `local` target only).
    public var local = LocalService()
    /// Ratio gates between two scenarios, e.g. batched edits/s ≥ 10 × single edits/s.
    public var comparisons: [Comparison]
    /// Whether to check afterwards, by query, that the service holds exactly the features added.
    public var verify: Bool
    /// The largest fraction of edits that may fail before the run fails (0 = none may fail).
    public var maxFailedEditRate: Double

    public init(
        version: Int = 1, name: String, description: String? = nil, target: Target, seed: UInt64 = 1,
        scenarios: [ScenarioSpec], comparisons: [Comparison] = [], verify: Bool = true,
        maxFailedEditRate: Double = 0, thresholds: [ThresholdSpec] = []
    ) {
        self.thresholds = thresholds
        self.version = version
        self.name = name
        self.description = description
        self.target = target
        self.seed = seed
        self.scenarios = scenarios
        self.comparisons = comparisons
        self.verify = verify
        self.maxFailedEditRate = maxFailedEditRate
    }

    /// How the embedded service is started for a `local` target: generated rows and injected faults (in `serve`'s
    /// `--fault` and `--latency` syntax, checked by the command line, which knows the server).
    public struct LocalService: Sendable, Hashable {
        /// Generated rows per layer, as `serve --rows`.
        public var rows: Int?
        /// `KIND:RATE[:…][@operation]` specifications, as `serve --fault`.
        public var faults: [Located] = []
        /// `fixed:MS`, `uniform:MIN,MAX`, `normal:MEAN,SD` or `lognormal:MEDIAN,SIGMA`, as `serve --latency`.
        public var latency: Located?
        /// The seed of the fault stream, as `serve --fault-seed`.
        public var faultSeed: UInt64?

        public init() {}
    }

    /// A value of the file with where it was written, for problems found after parsing.
    public struct Located: Sendable, Hashable {
        public var text: String
        public var field: String
        public var line: Int?
        public var column: Int?

        public init(text: String, field: String, line: Int?, column: Int?) {
            self.text = text
            self.field = field
            self.line = line
            self.column = column
        }
    }

    /// Where the load goes.
    public enum Target: Sendable, Hashable, CustomStringConvertible {
        /// The embedded local feature service, started for the run, with the named dataset.
        case local(dataset: String)
        /// A live feature service at this `…/FeatureServer` URL.
        case url(String)

        public var description: String {
            switch self {
            case .local(let dataset): return "local (dataset \(dataset))"
            case .url(let url): return url
            }
        }
    }

    /// A gate on the ratio of one metric between two scenarios.
    public struct Comparison: Sendable, Hashable {
        public var baseline: String
        public var candidate: String
        /// The metric compared; `editsPerSecond` for now.
        public var metric: String
        /// Minimum candidate/baseline ratio; nil reports the ratio without gating.
        public var minRatio: Double?

        public init(baseline: String, candidate: String, metric: String = "editsPerSecond", minRatio: Double? = nil) {
            self.baseline = baseline
            self.candidate = candidate
            self.metric = metric
            self.minRatio = minRatio
        }
    }

    /// A token, or a user name and password for generateToken.
    public struct Auth: Sendable, Hashable, CustomStringConvertible {
        public var token: String?
        public var username: String?
        public var password: String?
        public var tokenURL: String?

        public init(token: String? = nil, username: String? = nil, password: String? = nil, tokenURL: String? = nil) {
            self.token = token
            self.username = username
            self.password = password
            self.tokenURL = tokenURL
        }

        /// Never shows the secrets.
        public var description: String {
            token != nil ? "Auth(token: redacted)" : "Auth(username: \(username ?? "-"), password: redacted)"
        }
    }

    /// Certificate checks for https targets.
    public struct TLS: Sendable, Hashable {
        public var caFile: String?
        public var insecure: Bool

        public init(caFile: String? = nil, insecure: Bool = false) {
            self.caFile = caFile
            self.insecure = insecure
        }
    }

    /// Whether scenarios run one after another (version 1 files).
    public var isSequential: Bool { version < 2 }
}
