/// How a scenario schedules its iterations: one of k6's six executors, each with its own settings.
///
/// Closed-model executors (`shared-iterations`, `per-vu-iterations`, `constant-vus`, `ramping-vus`) run a set of
/// virtual users that each start their next iteration when the last one ends, so a slower service gets fewer
/// requests. Open-model executors (`constant-arrival-rate`, `ramping-arrival-rate`) start iterations on a schedule
/// whatever the service's latency, from a pool of VUs; an iteration that finds no free VU is dropped and counted.
package enum ExecutorConfig: Sendable, Hashable {
    case sharedIterations(SharedIterations)
    case perVUIterations(PerVUIterations)
    case constantVUs(ConstantVUs)
    case rampingVUs(RampingVUs)
    case constantArrivalRate(ConstantArrivalRate)
    case rampingArrivalRate(RampingArrivalRate)

    /// The executor names, as in k6.
    package static let names = [
        "shared-iterations", "per-vu-iterations", "constant-vus", "ramping-vus", "constant-arrival-rate", "ramping-arrival-rate",
    ]

    /// k6's name of this executor.
    package var name: String {
        switch self {
        case .sharedIterations: return "shared-iterations"
        case .perVUIterations: return "per-vu-iterations"
        case .constantVUs: return "constant-vus"
        case .rampingVUs: return "ramping-vus"
        case .constantArrivalRate: return "constant-arrival-rate"
        case .rampingArrivalRate: return "ramping-arrival-rate"
        }
    }

    /// True for the arrival-rate executors, whose latency is measured from each iteration's intended start.
    package var isOpenModel: Bool {
        switch self {
        case .constantArrivalRate, .rampingArrivalRate: return true
        default: return false
        }
    }

    /// The most VUs the executor ever runs at once (the connections it needs).
    package var maxVUs: Int {
        switch self {
        case .sharedIterations(let c): return c.vus
        case .perVUIterations(let c): return c.vus
        case .constantVUs(let c): return c.vus
        case .rampingVUs(let c): return max(c.startVUs, c.stages.map(\.target).max() ?? 0)
        case .constantArrivalRate(let c): return c.maxVUs
        case .rampingArrivalRate(let c): return c.maxVUs
        }
    }

    /// How long after the scenario's start new iterations may begin: `maxDuration`, `duration`, or the stages' total.
    package var scheduledDuration: Duration {
        switch self {
        case .sharedIterations(let c): return c.maxDuration
        case .perVUIterations(let c): return c.maxDuration
        case .constantVUs(let c): return c.duration
        case .rampingVUs(let c): return c.stages.reduce(.zero) { $0 + $1.duration }
        case .constantArrivalRate(let c): return c.duration
        case .rampingArrivalRate(let c): return c.stages.reduce(.zero) { $0 + $1.duration }
        }
    }

    /// The iterations the executor plans, when it has a fixed count.
    package var plannedIterations: Int? {
        switch self {
        case .sharedIterations(let c): return c.iterations
        case .perVUIterations(let c): return c.iterations * c.vus
        case .constantArrivalRate(let c): return c.plannedIterations
        case .rampingArrivalRate(let c): return c.plannedIterations
        default: return nil
        }
    }

    /// Cross-field problems in the settings (ranges of single fields are checked while reading them).
    package func validate() -> [ExecutorProblem] {
        switch self {
        case .rampingVUs(let c): return c.validate()
        case .constantArrivalRate(let c): return c.validate()
        case .rampingArrivalRate(let c): return c.validate()
        default: return []
        }
    }
}

/// A problem with an executor's settings: the field and what to write instead.
package struct ExecutorProblem: Sendable, Hashable {
    package var field: String
    package var problem: String
    package var fix: String

    package init(field: String, problem: String, fix: String) {
        self.field = field
        self.problem = problem
        self.fix = fix
    }
}

/// One step of a ramping executor: move linearly to `target` (VUs or iterations per time unit) over `duration`.
package struct Stage: Sendable, Hashable, Codable {
    package var duration: Duration
    package var target: Int

    package init(duration: Duration, target: Int) {
        self.duration = duration
        self.target = target
    }
}
