/// `ramping-arrival-rate`: the start rate moves linearly from `startRate` through `stages` (targets in iterations
/// per `timeUnit`), from a pool of `preAllocatedVUs` growing to `maxVUs`.
package struct RampingArrivalRate: ExecutorKindSettings {
    package var startRate: Int
    package var timeUnit: Duration
    package var stages: [Stage]
    package var preAllocatedVUs: Int
    package var maxVUs: Int

    package init(startRate: Int = 0, timeUnit: Duration = .seconds(1), stages: [Stage], preAllocatedVUs: Int, maxVUs: Int? = nil) {
        self.startRate = startRate
        self.timeUnit = timeUnit
        self.stages = stages
        self.preAllocatedVUs = preAllocatedVUs
        self.maxVUs = maxVUs ?? preAllocatedVUs
    }

    static let kind = ExecutorKind.rampingArrivalRate
    static let keys: [any ScenarioKeyDeclaration] = [
        ScenarioKey.startRate, ScenarioKey.timeUnit, ScenarioKey.stages, ScenarioKey.preAllocatedVUs, ScenarioKey.maxVUs,
    ]
    static let requiredKeys = ["stages", "preAllocatedVUs"]
    static let schemaRules: [SchemaValue.Member] = [
        .init(
            "anyOf",
            [
                ["required": ["startRate"], "properties": ["startRate": ["not": ["$ref": "#/$defs/zero"]]]],
                ["properties": ["stages": ["contains": ["required": ["target"], "properties": ["target": ["not": ["$ref": "#/$defs/zero"]]]]]]],
                ["properties": ["stages": ["maxItems": 0]]],
            ]),
        .init("errorMessage", "every rate is 0, so nothing would start: give startRate or a stage's target a value above 0"),
    ]
    static func missingKeyHint(_ key: String) -> String {
        key == "duration" ? ": its stages set how long it runs" : ArrivalRatePool.missingKeyHint(key)
    }

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self? {
        let start = input.read(.startRate, &reader)
        let unit = input.read(.timeUnit, &reader)
        let stages = input.read(.stages, &reader)
        let pool = ArrivalRatePool.read(input, &reader)
        guard let stages, let pool else { return nil }
        return Self(startRate: start, timeUnit: unit, stages: stages, preAllocatedVUs: pool.preAllocatedVUs, maxVUs: pool.maxVUs)
    }

    /// Iterations the schedule starts when none is dropped.
    package var plannedIterations: Int? { OpenSchedule(self).plannedIterations }

    var executor: ExecutorConfig { .rampingArrivalRate(self) }
    var scheduledDuration: Duration { stages.reduce(.zero) { $0 + $1.duration } }
    var schedule: ExecutorSchedule { .open(OpenSchedule(self)) }

    func validate() -> [ExecutorProblem] {
        var problems: [ExecutorProblem] = []
        if stages.isEmpty {
            problems.append(.init(field: "stages", problem: "no stages", fix: "add e.g. `stages: [{ duration: 1m, target: 100 }]`"))
        }
        problems += ArrivalRatePool.problems(preAllocatedVUs: preAllocatedVUs, maxVUs: maxVUs)
        if !stages.isEmpty && max(startRate, stages.map(\.target).max() ?? 0) == 0 {
            problems.append(.init(field: "stages", problem: "every rate is 0, so nothing would start", fix: "give a stage a target above 0"))
        }
        return problems
    }

    var reportSettings: [String: String] {
        [
            "startRate": "\(startRate)", "timeUnit": ExecutorText.duration(timeUnit), "stages": ExecutorText.stages(stages),
            "preAllocatedVUs": "\(preAllocatedVUs)", "maxVUs": "\(maxVUs)",
        ]
    }

    func planDescription(work: String, layers: String) -> String {
        "arrival rate ramping over \(stages.count) stages \(work), up to \(maxVUs) VUs, layer \(layers)"
    }

    func share(of segment: ExecutionTuple) -> ExecutorShare {
        var share = self
        let numbering = ArrivalRatePool.share(&share.preAllocatedVUs, &share.maxVUs, segment)
        return ExecutorShare(executor: share.executor, numbering: numbering)
    }
}
