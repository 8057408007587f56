/// A validated scenario file: what to run, against what, and which gates decide pass or fail.
///
/// The format follows k6's names where they exist (`scenarios`, `executor`, `vus`, `iterations`,
/// `maxDuration`, `thresholds`), so later executors and operations extend it without breaking old files.
public struct ScenarioPlan: Sendable, Hashable {
    /// The schema version of the file (currently 1).
    public var version: Int
    public var name: String
    public var description: String?
    public var target: Target
    /// Seed for generated payloads; the same seed gives the same features.
    public var seed: UInt64
    /// Scenarios in file order; they run one after another.
    public var scenarios: [ScenarioSpec]
    /// Ratio gates between two scenarios, e.g. batched edits/s ≥ 10 × single edits/s.
    public var comparisons: [Comparison]
    /// Whether to check afterwards, by query, that the service holds exactly the features added.
    public var verify: Bool
    /// The largest fraction of edits that may fail before the run fails (0 = none may fail).
    public var maxFailedEditRate: Double

    public init(
        version: Int = 1, name: String, description: String? = nil, target: Target, seed: UInt64 = 1,
        scenarios: [ScenarioSpec], comparisons: [Comparison] = [], verify: Bool = true,
        maxFailedEditRate: Double = 0
    ) {
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
}

/// One scenario: an operation repeated by virtual users under an executor.
public struct ScenarioSpec: Sendable, Hashable {
    public var name: String
    public var executor: Executor
    /// Concurrent virtual users (requests in flight at most).
    public var vus: Int
    /// Total iterations shared by all virtual users; each iteration is one request.
    public var iterations: Int
    /// The scenario stops starting iterations after this long.
    public var maxDuration: Duration
    public var operation: Operation
    /// The layer or table id the operation edits.
    public var layer: Int
    /// Features per applyEdits request.
    public var batchSize: Int
    public var rollbackOnFailure: Bool
    /// Retries of failed requests; nil sends each request once.
    public var retry: Retry?
    /// Adds carry GlobalIDs the client makes, sent with `useGlobalIds=true`, so a retried add is recognised as
    /// already applied instead of being duplicated (exactly once).
    public var clientGlobalIds: Bool

    public init(
        name: String, executor: Executor = .sharedIterations, vus: Int, iterations: Int,
        maxDuration: Duration = .seconds(600), operation: Operation = .addFeatures, layer: Int = 0, batchSize: Int = 1,
        rollbackOnFailure: Bool = true, retry: Retry? = nil, clientGlobalIds: Bool = false
    ) {
        self.name = name
        self.executor = executor
        self.vus = vus
        self.iterations = iterations
        self.maxDuration = maxDuration
        self.operation = operation
        self.layer = layer
        self.batchSize = batchSize
        self.rollbackOnFailure = rollbackOnFailure
        self.retry = retry
        self.clientGlobalIds = clientGlobalIds
    }

    /// How failed requests are retried: capped exponential backoff with full jitter, honouring `Retry-After`.
    public struct Retry: Sendable, Hashable {
        public var maxAttempts: Int
        public var initialBackoff: Duration
        public var maxBackoff: Duration
        /// Total time a request may spend retrying.
        public var budget: Duration

        public init(
            maxAttempts: Int = 5, initialBackoff: Duration = .milliseconds(100), maxBackoff: Duration = .seconds(10),
            budget: Duration = .seconds(60)
        ) {
            self.maxAttempts = maxAttempts
            self.initialBackoff = initialBackoff
            self.maxBackoff = maxBackoff
            self.budget = budget
        }
    }

    /// Executors, named as in k6.
    public enum Executor: String, Sendable, Hashable, CaseIterable {
        /// A fixed number of iterations shared by `vus` workers (closed model).
        case sharedIterations = "shared-iterations"
    }

    /// What one iteration does.
    public enum Operation: String, Sendable, Hashable, CaseIterable {
        /// applyEdits with `batchSize` generated adds.
        case addFeatures = "add"
    }

    /// The number of edits the scenario sends when every iteration runs.
    public var plannedEdits: Int { iterations * batchSize }
}
