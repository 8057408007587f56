/// `per-vu-iterations`: each of `vus` VUs runs `iterations` iterations, or until `maxDuration`.
package struct PerVUIterations: ExecutorKindSettings {
    package var vus: Int
    package var iterations: Int
    package var maxDuration: Duration

    package init(vus: Int = 1, iterations: Int = 1, maxDuration: Duration = .seconds(600)) {
        self.vus = vus
        self.iterations = iterations
        self.maxDuration = maxDuration
    }

    static let kind = ExecutorKind.perVUIterations
    static let keys: [any ScenarioKeyDeclaration] = [ScenarioKey.vus, ScenarioKey.iterations, ScenarioKey.maxDuration]
    static func missingKeyHint(_ key: String) -> String { key == "duration" ? ": it runs its iterations, within maxDuration" : "" }

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self? {
        Self(vus: input.read(.vus, &reader), iterations: input.read(.iterations, &reader), maxDuration: input.read(.maxDuration, &reader))
    }

    var executor: ExecutorConfig { .perVUIterations(self) }
    var maxVUs: Int { vus }
    var scheduledDuration: Duration { maxDuration }
    var plannedIterations: Int? { iterations * vus }
    var endsAfterIterations: Bool { true }
    var schedule: ExecutorSchedule { .closed(ClosedSchedule(kind: .perVU(iterations: iterations), end: maxDuration, vus: vus)) }

    func applying(_ overrides: ScenarioOverrides) -> Self {
        Self(vus: overrides.vus ?? vus, iterations: overrides.iterations ?? iterations, maxDuration: maxDuration)
    }

    var reportSettings: [String: String] { ["vus": "\(vus)", "iterations": "\(iterations)", "maxDuration": ExecutorText.duration(maxDuration)] }

    func planDescription(work: String, layers: String) -> String { "\(iterations) iterations per VU \(work), \(vus) VUs, layer \(layers)" }

    /// VUs scaled; each VU's iterations as they are.
    func share(of segment: ExecutionTuple) -> ExecutorShare {
        var share = self
        share.vus = segment.scale(vus)
        return ExecutorShare(executor: share.executor, numbering: share.vus > 0 ? segment : nil)
    }
}
