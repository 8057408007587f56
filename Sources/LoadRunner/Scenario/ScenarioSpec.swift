import FeatureModel

/// One scenario: an executor that schedules iterations, and the operations those iterations run.
package struct ScenarioSpec: Sendable, Hashable {
    package var name: String
    package var executor: ExecutorConfig
    /// When the scenario starts, after the run's start (or after ``startAfter`` ends).
    package var startTime: Duration = .zero
    /// Start only when this scenario has finished (then wait ``startTime``).
    package var startAfter: String?
    /// How long iterations still running at the end of the schedule may go on before they are cancelled.
    package var gracefulStop: Duration = .seconds(30)
    /// Tags added to every metric of the scenario.
    package var tags: [String: String] = [:]
    /// One operation (`exec`) or a weighted mix; each iteration runs one of them.
    package var operations: [OperationSpec]
    /// Retries of failed requests; nil sends each request once.
    package var retry: Retry?
    /// A pause after each iteration of a VU.
    var thinkTime: ThinkTime?
    /// Existing features the operations need (updates, deletes, related queries, attachments).
    package var setup = Setup()
    /// The parameter this scenario sweeps, before the plan expands it into points.
    package var sweep: Sweep?
    /// The sweep and value this scenario measures, once expanded.
    package var sweepPoint: SweepPoint?
    /// A sweep point's warm-up: it runs, but its figures are left out of the report.
    package var isWarmUp = false

    package init(name: String, executor: ExecutorConfig, operations: [OperationSpec]) {
        self.name = name
        self.executor = executor
        self.operations = operations
    }

    /// A `shared-iterations` scenario of applyEdits with `batchSize` adds per request: the shape of version-1 files.
    package init(
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
    package struct Retry: Sendable, Hashable {
        package var maxAttempts: Int
        package var initialBackoff: Duration
        package var maxBackoff: Duration
        /// Total time a request may spend retrying.
        package var budget: Duration

        package init(
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
    enum ThinkTime: Sendable, Hashable {
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
    package struct Setup: Sendable, Hashable {
        /// Generated features added before the scenario starts, into the pool of existing IDs.
        package var seed = 0
        /// Existing object IDs sampled into the pool.
        package var sample = 10_000

        package init(seed: Int = 0, sample: Int = 10_000) {
            self.seed = seed
            self.sample = sample
        }
    }

    /// VUs the executor may run at once.
    package var vus: Int { executor.maxVUs }
    /// Edits per iteration of the first operation (the "batch" of the summary table).
    package var batchSize: Int { operations.first?.editsPerIteration ?? 0 }
    /// The layers the operations use.
    package var layers: [Int] { Array(Set(operations.map(\.layer))).sorted() }
    /// Iterations the executor plans, when fixed.
    package var iterations: Int? { executor.plannedIterations }
}
