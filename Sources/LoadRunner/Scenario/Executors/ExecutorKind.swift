/// The executors a scenario can schedule its iterations with, by k6's names. Each kind's settings type owns its
/// keys, their reading, its checks and its schema; this file registers them.
///
/// Adding an executor: write its ``ExecutorKindSettings`` type in a file of its own, add a case here and in
/// ``ExecutorConfig`` with an arm in each of their two switches, then regenerate the schema with
/// `swift run featureload schema > Scenarios/schema/scenario.schema.json`.
package enum ExecutorKind: String, Sendable, Hashable, CaseIterable {
    case sharedIterations = "shared-iterations"
    case perVUIterations = "per-vu-iterations"
    case constantVUs = "constant-vus"
    case rampingVUs = "ramping-vus"
    case constantArrivalRate = "constant-arrival-rate"
    case rampingArrivalRate = "ramping-arrival-rate"

    /// The type that owns the executor's settings.
    var settingsType: any ExecutorKindSettings.Type {
        switch self {
        case .sharedIterations: return SharedIterations.self
        case .perVUIterations: return PerVUIterations.self
        case .constantVUs: return ConstantVUs.self
        case .rampingVUs: return RampingVUs.self
        case .constantArrivalRate: return ConstantArrivalRate.self
        case .rampingArrivalRate: return RampingArrivalRate.self
        }
    }

    /// Every key some executor takes, each once, in the order the kinds list them.
    static let allKeys: [any ScenarioKeyDeclaration] = {
        var keys: [any ScenarioKeyDeclaration] = []
        for kind in allCases {
            for key in kind.settingsType.keys where !keys.contains(where: { $0.name == key.name }) { keys.append(key) }
        }
        return keys
    }()
}

/// How a scenario schedules its iterations: one of the executors, each with its own settings.
///
/// Closed-model executors (`shared-iterations`, `per-vu-iterations`, `constant-vus`, `ramping-vus`) run a set of
/// virtual users that each start their next iteration when the last one ends, so a slower service gets fewer
/// requests. Open-model executors (`constant-arrival-rate`, `ramping-arrival-rate`) start iterations on a schedule
/// whatever the service's latency, from a pool of VUs; an iteration that finds no free VU is dropped and counted.
package enum ExecutorConfig: Sendable, Hashable {
    // One case per ``ExecutorKind``, named as it is.
    case sharedIterations(SharedIterations)
    case perVUIterations(PerVUIterations)
    case constantVUs(ConstantVUs)
    case rampingVUs(RampingVUs)
    case constantArrivalRate(ConstantArrivalRate)
    case rampingArrivalRate(RampingArrivalRate)

    /// The settings, seen through what every executor provides.
    var owner: any ExecutorKindSettings {
        switch self {
        case .sharedIterations(let settings): return settings
        case .perVUIterations(let settings): return settings
        case .constantVUs(let settings): return settings
        case .rampingVUs(let settings): return settings
        case .constantArrivalRate(let settings): return settings
        case .rampingArrivalRate(let settings): return settings
        }
    }
}
