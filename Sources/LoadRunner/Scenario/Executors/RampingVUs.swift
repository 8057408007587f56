/// `ramping-vus`: the number of looping VUs moves from `startVUs` through `stages`; VUs above a falling target
/// finish their iteration (within `gracefulRampDown`) and wait.
package struct RampingVUs: ExecutorKindSettings {
    package var startVUs: Int
    package var stages: [Stage]
    var gracefulRampDown: Duration

    package init(startVUs: Int = 1, stages: [Stage], gracefulRampDown: Duration = .seconds(30)) {
        self.startVUs = startVUs
        self.stages = stages
        self.gracefulRampDown = gracefulRampDown
    }

    static let kind = ExecutorKind.rampingVUs
    static let keys: [any ScenarioKeyDeclaration] = [ScenarioKey.startVUs, ScenarioKey.stages, ScenarioKey.gracefulRampDown]
    static let requiredKeys = ["stages"]
    static let schemaPropertyRules: [SchemaValue.Member] = [
        .init(
            "stages",
            [
                "if": ["type": "array", "minItems": 1],
                "then": [
                    "contains": ["properties": ["duration": ["$ref": "#/$defs/positiveDuration"]]],
                    "errorMessage": "the stages last no time: give at least one stage a duration above 0",
                ],
            ])
    ]
    static let schemaRules: [SchemaValue.Member] = [
        .init(
            "allOf",
            [
                [
                    "if": ["required": ["startVUs"], "properties": ["startVUs": ["$ref": "#/$defs/zero"]]],
                    "then": [
                        "properties": [
                            "stages": [
                                "contains": ["required": ["target"], "properties": ["target": ["not": ["$ref": "#/$defs/zero"]]]],
                                "errorMessage": "no stage has a VU: give startVUs or a stage's target at least 1",
                            ]
                        ]
                    ],
                ]
            ])
    ]
    static func missingKeyHint(_ key: String) -> String {
        switch key {
        case "duration": return ": its stages set how long it runs"
        case "vus": return ": its stages set the VUs"
        default: return ""
        }
    }

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self? {
        let start = input.read(.startVUs, &reader)
        let stages = input.read(.stages, &reader)
        let rampDown = input.read(.gracefulRampDown, &reader)
        return stages.map { Self(startVUs: start, stages: $0, gracefulRampDown: rampDown) }
    }

    var executor: ExecutorConfig { .rampingVUs(self) }
    var maxVUs: Int { max(startVUs, stages.map(\.target).max() ?? 0) }
    var scheduledDuration: Duration { stages.reduce(.zero) { $0 + $1.duration } }
    var schedule: ExecutorSchedule {
        let stages = VUStages(start: startVUs, stages: stages)
        return .closed(ClosedSchedule(kind: .ramping(stages), end: stages.total, vus: maxVUs))
    }

    func validate() -> [ExecutorProblem] {
        var problems: [ExecutorProblem] = []
        if stages.isEmpty {
            problems.append(.init(field: "stages", problem: "no stages", fix: "add e.g. `stages: [{ duration: 30s, target: 10 }]`"))
        }
        if stages.reduce(Duration.zero, { $0 + $1.duration }) == .zero && !stages.isEmpty {
            problems.append(.init(field: "stages", problem: "the stages last no time", fix: "give at least one stage a duration"))
        }
        if max(startVUs, stages.map(\.target).max() ?? 0) == 0 {
            problems.append(.init(field: "stages", problem: "no stage has a VU", fix: "give startVUs or a stage's target at least 1"))
        }
        return problems
    }

    var reportSettings: [String: String] {
        ["startVUs": "\(startVUs)", "stages": ExecutorText.stages(stages), "gracefulRampDown": ExecutorText.duration(gracefulRampDown)]
    }

    func planDescription(work: String, layers: String) -> String {
        "VUs ramping over \(stages.count) stages to at most \(maxVUs), iterations \(work), layer \(layers)"
    }

    /// The whole test's stages; the segment runs the VUs whose numbers it owns, each active while the whole test's
    /// VU count is above its number (k6's way: the shares add up at every moment of a ramp).
    func share(of segment: ExecutionTuple) -> ExecutorShare {
        let tasks = segment.scale(maxVUs)
        return ExecutorShare(executor: executor, numbering: tasks > 0 ? segment : nil, vuTasks: tasks)
    }
}
