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
        Self(
            "maxBackoff", .duration(), default: ScenarioSpec.Retry().maxBackoff,
            "Longest wait between two attempts, at least initialBackoff; default 10s.")
    }
    static var retryBudget: Self {
        Self(
            "budget", .duration(), default: ScenarioSpec.Retry().budget,
            "Total time one request may spend retrying before it is given up; default 60s.")
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
            "Existing object ids read from the layer into the pool that updates, deletes, related queries and attachments draw from, 0 to 1,000,000; default 10000."
        )
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
let retrySettingKeys: [any ScenarioKeyDeclaration] = [
    ScenarioKey.maxAttempts, ScenarioKey.initialBackoff, ScenarioKey.maxBackoff, ScenarioKey.retryBudget,
]

// The file's own keys, and the numbers inside a stage and a sweep.

extension ScenarioKey where Value == Int? {
    static var version: Self {
        Self(
            "version", .integer(1...2),
            "Format version: 1 runs the scenarios one after another in file order, 2 runs them at the same time, each from its startTime or after its startAfter scenario, as k6 does; required, since the two run the same file differently."
        )
    }
    static var rows: Self {
        Self(
            "rows", .integer(0...10_000_000), examples: [500],
            "Generated rows added to every layer whose dataset has a generator, as `serve --rows`, 0 to 10,000,000; default none (the dataset's own rows only)."
        )
    }
    static var stageTarget: Self {
        Self(
            "target", .integer(0...10_000_000), examples: [10],
            "VUs (ramping-vus) or iterations per timeUnit (ramping-arrival-rate) at the end of the stage, 0 to 10,000,000; required.")
    }
}

extension ScenarioKey where Value == Int {
    static var seed: Self {
        Self(
            "seed", .integer(0...Int.max), default: 1, examples: [42],
            "Seed of the generated features and random choices: the same seed sends the same payloads; default 1.")
    }
    static var faultSeed: Self {
        Self(
            "faultSeed", .integer(0...Int.max), default: 1, examples: [7],
            "Seed of the injected faults' random stream (same seed, same faults), as `serve --fault-seed`; default 1.")
    }
}

extension ScenarioKey where Value == Bool {
    static var verify: Self {
        Self(
            "verify", .boolean, default: true,
            "Whether to query the service after the run to check that it holds exactly the features added; default true.")
    }
}

extension ScenarioKey where Value == Double {
    static var maxFailedEditRate: Self {
        Self(
            "maxFailedEditRate", .fraction(), default: 0, examples: [0, 0.01],
            "Largest share of edits, 0 to 1, that may fail without failing the run, e.g. 0.01 for 1 %; default 0 (any failed edit fails the run).")
    }

    static var maxFailedRequestRate: Self {
        Self(
            "maxFailedRequestRate", .fraction(), default: 0.01, examples: [0.05, 1],
            "Largest share of each scenario's HTTP requests, 0 to 1, that may fail (no answer, HTTP 400 or above, or an ArcGIS error; every "
                + "attempt counts, retries included, as http_req_failed counts them) without failing the run: the gate every scenario has "
                + "without a threshold, so that a target that answers nothing but errors never passes; default 0.01 (1 %); 1 turns it off.")
    }
}

extension KeyValueType where Value == Int {
    /// One value of a sweep's list.
    static var sweepValue: Self { .integer(1...1_000_000) }
}

/// The keys at the top of a scenario file and under `local:` that are declared as keys.
let fileKeys: [any ScenarioKeyDeclaration] = [
    ScenarioKey.version, ScenarioKey.seed, ScenarioKey.verify, ScenarioKey.maxFailedEditRate, ScenarioKey.maxFailedRequestRate,
]
let localServiceKeys: [any ScenarioKeyDeclaration] = [ScenarioKey.rows, ScenarioKey.faultSeed]
