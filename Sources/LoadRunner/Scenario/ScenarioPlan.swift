/// A validated scenario file: what to run, against what, and which gates decide pass or fail.
///
/// The format follows k6's names where they exist (`scenarios`, `executor`, `vus`, `iterations`,
/// `maxDuration`, `thresholds`), so later executors and operations extend it without breaking old files.
package struct ScenarioPlan: Sendable, Hashable {
    /// The format version: 1 runs scenarios one after another; 2 runs them concurrently, each from its
    /// `startTime` (or after `startAfter`), as k6 does.
    package var version: Int
    package var name: String
    package var description: String?
    package var target: Target
    /// Seed for generated payloads; the same seed gives the same features.
    package var seed: UInt64
    /// Scenarios in file order.
    package var scenarios: [ScenarioSpec]
    /// k6 thresholds on the run's metrics.
    package var thresholds: [ThresholdSpec] = []
    /// How to authenticate with a live target (secrets come from `${ENV}` interpolation).
    package var auth: Auth?
    /// TLS settings for a live https target.
    package var tls: TLS?
    /// The longest one HTTP request may take.
    package var requestTimeout: Duration?
    /// Rows and faults of the embedded service (a `local` target only).
    package var local = LocalService()
    /// Ratio gates between two scenarios, e.g. batched edits/s ≥ 10 × single edits/s.
    package var comparisons: [Comparison]
    /// Whether to check afterwards, by query, that the service holds exactly the features added.
    package var verify: Bool
    /// The largest fraction of edits that may fail before the run fails (0 = none may fail).
    package var maxFailedEditRate: Double
    /// The largest fraction of HTTP requests (attempts, as `http_req_failed` counts them) that may fail in each
    /// scenario before the run fails; 1 turns the gate off (see ``ScenarioGates``).
    package var maxFailedRequestRate = ScenarioKey<Double>.maxFailedRequestRate.defaultValue
    /// The command line's overrides (`--vus`, `--duration`, `--iterations`, `--scenario`) already applied here.
    package var overrides = ScenarioOverrides()
    /// The run's own tags (`run --tag key=value`), added to every metric of the run: the one place they are held.
    /// A scenario's `tags:` of the same name win (see ``metricTags(of:)``).
    package var tags: [String: String] = [:]
    /// The `${NAME}` variables the file used, for the report (values of secret-looking names left out).
    package var variablesUsed: [VariableUse] = []
    /// What the command line left out of the file, in words for the report.
    package var notes: [String] = []

    package init(
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
    package struct LocalService: Sendable, Hashable {
        /// Generated rows per layer, as `serve --rows`.
        package var rows: Int?
        /// `KIND:RATE[:…][@operation]` specifications, as `serve --fault`.
        package var faults: [Located] = []
        /// `fixed:MS`, `uniform:MIN,MAX`, `normal:MEAN,SD` or `lognormal:MEDIAN,SIGMA`, as `serve --latency`.
        package var latency: Located?
        /// The seed of the fault stream, as `serve --fault-seed`.
        package var faultSeed: UInt64?

        package init() {}
    }

    /// A value of the file with where it was written, for problems found after parsing.
    package struct Located: Sendable, Hashable {
        package var text: String
        package var field: String
        package var line: Int?
        package var column: Int?

        package init(text: String, field: String, line: Int?, column: Int?) {
            self.text = text
            self.field = field
            self.line = line
            self.column = column
        }
    }

    /// Where the load goes.
    package enum Target: Sendable, Hashable, CustomStringConvertible {
        /// The embedded local feature service, started for the run, with the named dataset.
        case local(dataset: String)
        /// A live feature service at this `…/FeatureServer` URL.
        case url(String)

        package var description: String {
            switch self {
            case .local(let dataset): return "local (dataset \(dataset))"
            case .url(let url): return url
            }
        }
    }

    /// A gate on the ratio of one metric between two scenarios.
    package struct Comparison: Sendable, Hashable {
        package var baseline: String
        package var candidate: String
        /// The metric compared; `editsPerSecond` for now.
        package var metric: String
        /// Minimum candidate/baseline ratio; nil reports the ratio without gating.
        package var minRatio: Double?

        package init(baseline: String, candidate: String, metric: String = "editsPerSecond", minRatio: Double? = nil) {
            self.baseline = baseline
            self.candidate = candidate
            self.metric = metric
            self.minRatio = minRatio
        }
    }

    /// A token, or a user name and password for generateToken.
    package struct Auth: Sendable, Hashable, CustomStringConvertible {
        package var token: String?
        package var username: String?
        package var password: String?
        package var tokenURL: String?

        package init(token: String? = nil, username: String? = nil, password: String? = nil, tokenURL: String? = nil) {
            self.token = token
            self.username = username
            self.password = password
            self.tokenURL = tokenURL
        }

        /// Never shows the secrets.
        package var description: String {
            token != nil ? "Auth(token: redacted)" : "Auth(username: \(username ?? "-"), password: redacted)"
        }
    }

    /// Certificate checks for https targets.
    package struct TLS: Sendable, Hashable {
        package var caFile: String?
        package var insecure: Bool

        package init(caFile: String? = nil, insecure: Bool = false) {
            self.caFile = caFile
            self.insecure = insecure
        }
    }

    /// The tags every metric of `spec` carries besides `scenario`, `operation` and `status`: the run's tags with the
    /// scenario's own over them.
    package func metricTags(of spec: ScenarioSpec) -> [String: String] {
        tags.merging(spec.tags) { _, scenario in scenario }
    }

    /// Whether scenarios run one after another (version 1 files).
    package var isSequential: Bool { version < 2 }
}
