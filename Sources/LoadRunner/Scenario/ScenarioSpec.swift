import FeatureModel

/// One scenario: an executor that schedules iterations, and the operations those iterations run.
public struct ScenarioSpec: Sendable, Hashable {
    public var name: String
    public var executor: ExecutorConfig
    /// When the scenario starts, after the run's start (or after ``startAfter`` ends).
    public var startTime: Duration = .zero
    /// Start only when this scenario has finished (then wait ``startTime``).
    public var startAfter: String?
    /// How long iterations still running at the end of the schedule may go on before they are cancelled.
    public var gracefulStop: Duration = .seconds(30)
    /// Tags added to every metric of the scenario.
    public var tags: [String: String] = [:]
    /// One operation (`exec`) or a weighted mix; each iteration runs one of them.
    public var operations: [OperationSpec]
    /// Retries of failed requests; nil sends each request once.
    public var retry: Retry?
    /// A pause after each iteration of a VU.
    public var thinkTime: ThinkTime?
    /// Existing features the operations need (updates, deletes, related queries, attachments).
    public var setup = Setup()
    /// The parameter this scenario sweeps, before the plan expands it into points.
    public var sweep: Sweep?
    /// The sweep and value this scenario measures, once expanded.
    public var sweepPoint: SweepPoint?
    /// A sweep point's warm-up: it runs, but its figures are left out of the report.
    public var isWarmUp = false

    public init(name: String, executor: ExecutorConfig, operations: [OperationSpec]) {
        self.name = name
        self.executor = executor
        self.operations = operations
    }

    /// A `shared-iterations` scenario of applyEdits with `batchSize` adds per request: the shape of version-1 files.
    public init(
        name: String, vus: Int, iterations: Int, maxDuration: Duration = .seconds(600), layer: Int = 0, batchSize: Int = 1,
        rollbackOnFailure: Bool = true, retry: Retry? = nil, clientGlobalIds: Bool = false
    ) {
        let operation = OperationSpec(
            .applyEdits(ApplyEditsSettings(adds: batchSize, rollbackOnFailure: rollbackOnFailure, clientGlobalIds: clientGlobalIds)), layer: layer)
        self.init(
            name: name, executor: .sharedIterations(.init(vus: vus, iterations: iterations, maxDuration: maxDuration)),
            operations: [operation])
        self.retry = retry
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

    /// A VU's pause after each iteration.
    public enum ThinkTime: Sendable, Hashable {
        case fixed(Duration)
        case uniform(Duration, Duration)

        /// The pause for iteration `index` (seeded, so reruns pause alike).
        func pause(index: Int, seed: UInt64) -> Duration {
            switch self {
            case .fixed(let d): return d
            case .uniform(let low, let high):
                var random = SplitMixSeed.random(seed: seed, index: index)
                return low + (high - low) * random.nextUnit()
            }
        }
    }

    /// The features a scenario's operations start from (k6's `setup`).
    public struct Setup: Sendable, Hashable {
        /// Generated features added before the scenario starts, into the pool of existing IDs.
        public var seed = 0
        /// Existing object IDs sampled into the pool.
        public var sample = 10_000

        public init(seed: Int = 0, sample: Int = 10_000) {
            self.seed = seed
            self.sample = sample
        }
    }

    /// VUs the executor may run at once.
    public var vus: Int { executor.maxVUs }
    /// Edits per iteration of the first operation (the "batch" of the summary table).
    public var batchSize: Int { operations.first?.editsPerIteration ?? 0 }
    /// The layers the operations use.
    public var layers: [Int] { Array(Set(operations.map(\.layer))).sorted() }
    /// Iterations the executor plans, when fixed.
    public var iterations: Int? { executor.plannedIterations }
}
