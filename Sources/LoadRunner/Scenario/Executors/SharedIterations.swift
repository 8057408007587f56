/// `shared-iterations`: `vus` VUs share `iterations`; the scenario ends when all are done or at `maxDuration`.
package struct SharedIterations: ExecutorKindSettings {
    package var vus: Int
    package var iterations: Int
    package var maxDuration: Duration

    package init(vus: Int = 1, iterations: Int = 1, maxDuration: Duration = .seconds(600)) {
        self.vus = vus
        self.iterations = iterations
        self.maxDuration = maxDuration
    }

    static let kind = ExecutorKind.sharedIterations
    static let keys: [any ScenarioKeyDeclaration] = [ScenarioKey.vus, ScenarioKey.iterations, ScenarioKey.maxDuration]
    static let requiredKeys = ["iterations"]
    static func missingKeyHint(_ key: String) -> String { key == "duration" ? ": it runs its iterations, within maxDuration" : "" }

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self? {
        let settings = Self(
            vus: input.read(.vus, &reader), iterations: input.read(.iterations, &reader), maxDuration: input.read(.maxDuration, &reader))
        return input.has(ScenarioKey.iterations.name) ? settings : nil
    }

    var executor: ExecutorConfig { .sharedIterations(self) }
    var maxVUs: Int { vus }
    var scheduledDuration: Duration { maxDuration }
    var plannedIterations: Int? { iterations }
    var endsAfterIterations: Bool { true }
    var schedule: ExecutorSchedule { .closed(ClosedSchedule(kind: .shared(iterations: iterations), end: maxDuration, vus: vus)) }

    func applying(_ overrides: ScenarioOverrides) -> Self {
        Self(vus: overrides.vus ?? vus, iterations: overrides.iterations ?? iterations, maxDuration: maxDuration)
    }

    var reportSettings: [String: String] { ["vus": "\(vus)", "iterations": "\(iterations)", "maxDuration": ExecutorText.duration(maxDuration)] }

    func planDescription(work: String, layers: String) -> String { "\(iterations) iterations \(work), \(vus) VUs, layer \(layers)" }

    /// VUs scaled; the iterations split the way the VUs are (k6: the tuple re-split by the VU count), numbered by
    /// that split.
    func share(of segment: ExecutionTuple) -> ExecutorShare {
        let split = try? segment.split(by: vus)
        var share = self
        share.iterations = split?.scale(iterations) ?? 0
        share.vus = segment.scale(vus)
        return ExecutorShare(executor: share.executor, numbering: share.vus > 0 && share.iterations > 0 ? split : nil)
    }
}
