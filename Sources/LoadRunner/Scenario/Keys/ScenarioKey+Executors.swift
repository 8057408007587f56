// The executors' keys. A key several executors take is declared once, with a description that covers each use.

extension ScenarioKey where Value == Int {
    static var vus: Self {
        Self(
            "vus", .integer(1...10_000), default: 1, examples: [8],
            "shared-iterations, per-vu-iterations, constant-vus: virtual users (concurrent connections) running iterations at once, 1 to 10,000; default 1."
        )
    }
    static var iterations: Self {
        Self(
            "iterations", .integer(1...100_000_000), default: 1, examples: [1000],
            "shared-iterations: iterations shared by all VUs, required; per-vu-iterations: iterations each VU runs, default 1; 1 to 100,000,000.")
    }
    static var startVUs: Self {
        Self("startVUs", .integer(0...10_000), default: 1, examples: [0], "ramping-vus: VUs running before the first stage, 0 to 10,000; default 1.")
    }
    static var startRate: Self {
        Self(
            "startRate", .integer(0...10_000_000), default: 0,
            "ramping-arrival-rate: iterations started per timeUnit before the first stage, 0 to 10,000,000; default 0.")
    }
}

extension ScenarioKey where Value == Int? {
    static var rate: Self {
        Self(
            "rate", .integer(1...10_000_000), examples: [100],
            "constant-arrival-rate: iterations started per timeUnit, whatever the response time, 1 to 10,000,000; required.")
    }
    static var preAllocatedVUs: Self {
        Self(
            "preAllocatedVUs", .integer(1...10_000), examples: [20],
            "constant-arrival-rate, ramping-arrival-rate: VUs ready at the start to run iterations, 1 to 10,000; required.")
    }
    static var maxVUs: Self {
        Self(
            "maxVUs", .integer(1...10_000), examples: [100],
            "constant-arrival-rate, ramping-arrival-rate: most VUs the pool may grow to when iterations outpace it (an iteration that finds no free VU is dropped and counted), 1 to 10,000, at least preAllocatedVUs; default preAllocatedVUs."
        )
    }
}

extension ScenarioKey where Value == Duration {
    static var maxDuration: Self {
        Self(
            "maxDuration", .duration(), default: .seconds(600), examples: [.seconds(300)],
            "shared-iterations, per-vu-iterations: no iteration starts after this long, even if some remain; default 10m.")
    }
    static var gracefulRampDown: Self {
        Self(
            "gracefulRampDown", .duration(), default: .seconds(30),
            "ramping-vus: how long VUs above a falling target may finish their iteration before they are stopped; default 30s.")
    }
    static var timeUnit: Self {
        Self(
            "timeUnit", .duration(), default: .seconds(1), examples: [.seconds(1), .seconds(60)],
            "constant-arrival-rate, ramping-arrival-rate: the period in which rate, startRate and stage targets count iterations; default 1s.")
    }
}

extension ScenarioKey where Value == Duration? {
    static var duration: Self {
        Self(
            "duration", .duration(), examples: [.seconds(30), .seconds(300)],
            "constant-vus, constant-arrival-rate: how long iterations keep starting; required.")
    }
}

extension ScenarioKey where Value == [Stage]? {
    static var stages: Self {
        Self("stages", .stages, examples: [[Stage(duration: .seconds(30), target: 10), Stage(duration: .seconds(60), target: 10)]])
    }
}

extension KeyValueType where Value == [Stage] {
    /// A list of `{ duration, target }` steps; the schema's `stages` value type describes them.
    static var stages: Self {
        Self(
            schema: [ref("stages")], read: { key, reader in ScenarioParser.readStages(key.node, field: key.field, &reader) },
            render: { _ in nil },
            yaml: { stages in
                "[" + stages.map { "{ duration: \(DurationText.format($0.duration)), target: \($0.target) }" }.joined(separator: ", ") + "]"
            })
    }
}

extension ScenarioKey {
    /// A key with no default and no description of its own: its value type's definition describes it (`stages`).
    init<Wrapped>(_ name: String, _ type: KeyValueType<Wrapped>, examples: [Wrapped]) where Value == Wrapped? {
        self.init(name, .optional(type), default: nil, examples: examples.map { $0 }, "")
    }
}
