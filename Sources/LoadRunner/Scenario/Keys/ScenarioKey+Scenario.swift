// The keys of a scenario besides its executor's and operations': when it starts and stops, the features it starts
// from, and how its requests are retried.

extension ScenarioKey where Value == Duration {
    static var startTime: Self {
        Self(
            "startTime", .duration(allowZero: true), default: .zero, examples: [.seconds(30)],
            "Wait this long after the run starts (or after the startAfter scenario ends) before starting; default 0s.")
    }
    static var gracefulStop: Self {
        Self(
            "gracefulStop", .duration(allowZero: true), default: .seconds(30),
            "How long iterations still running when the schedule ends may go on before they are cancelled; default 30s.")
    }
    static var initialBackoff: Self {
        Self(
            "initialBackoff", .duration(), default: ScenarioSpec.Retry().initialBackoff,
            "Longest wait before the first retry, doubling with each retry up to maxBackoff; default 100ms.")
    }
    static var maxBackoff: Self {
        Self("maxBackoff", .duration(), default: ScenarioSpec.Retry().maxBackoff, "Longest wait between two attempts, at least initialBackoff; default 10s.")
    }
    static var retryBudget: Self {
        Self("budget", .duration(), default: ScenarioSpec.Retry().budget, "Total time one request may spend retrying before it is given up; default 60s.")
    }
}

extension ScenarioKey where Value == String? {
    static var startAfter: Self {
        Self(
            "startAfter", .name, examples: ["warmup"], "Start only when the named other scenario has finished, then wait startTime; default none.")
    }
}

extension ScenarioKey where Value == Int {
    static var setupSeed: Self {
        Self(
            "seed", .integer(0...1_000_000), default: 0,
            "Generated features added before the scenario starts, into the pool of existing ids, 0 to 1,000,000; default 0.")
    }
    static var setupSample: Self {
        Self(
            "sample", .integer(0...1_000_000), default: 10_000,
            "Existing object ids read from the layer into the pool that updates, deletes, related queries and attachments draw from, 0 to 1,000,000; default 10000.")
    }
    static var maxAttempts: Self {
        Self(
            "maxAttempts", .integer(1...100), default: ScenarioSpec.Retry().maxAttempts,
            "Attempts per request, the first included, 1 to 100; default 5.")
    }
}

/// The scenario keys outside executors and operations, for the tests that hold every reader to its schema.
let otherScenarioKeys: [any ScenarioKeyDeclaration] = [
    ScenarioKey.startTime, ScenarioKey.startAfter, ScenarioKey.gracefulStop, ScenarioKey.mixEntryName, ScenarioKey.weight,
]
/// The keys of `setup:`.
let setupKeys: [any ScenarioKeyDeclaration] = [ScenarioKey.setupSeed, ScenarioKey.setupSample]
/// The keys of `retry:`.
let retrySettingKeys: [any ScenarioKeyDeclaration] = [ScenarioKey.maxAttempts, ScenarioKey.initialBackoff, ScenarioKey.maxBackoff, ScenarioKey.retryBudget]
