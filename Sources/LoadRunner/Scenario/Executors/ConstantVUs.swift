/// `constant-vus`: `vus` VUs loop for `duration`.
package struct ConstantVUs: ExecutorKindSettings {
    package var vus: Int
    package var duration: Duration

    package init(vus: Int = 1, duration: Duration) {
        self.vus = vus
        self.duration = duration
    }

    static let kind = ExecutorKind.constantVUs
    static let keys: [any ScenarioKeyDeclaration] = [ScenarioKey.vus, ScenarioKey.duration]
    static let requiredKeys = ["duration"]

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self? {
        let vus = input.read(.vus, &reader)
        return input.read(.duration, &reader).map { Self(vus: vus, duration: $0) }
    }

    var executor: ExecutorConfig { .constantVUs(self) }
    var maxVUs: Int { vus }
    var scheduledDuration: Duration { duration }
    var schedule: ExecutorSchedule { .closed(ClosedSchedule(kind: .constant, end: duration, vus: vus)) }

    func applying(_ overrides: ScenarioOverrides) -> Self { Self(vus: overrides.vus ?? vus, duration: overrides.duration ?? duration) }

    func sweeping(_ parameter: Sweep.Parameter, _ value: Int) -> Self? {
        guard parameter == .vus else { return nil }
        return Self(vus: value, duration: duration)
    }

    func lasting(_ duration: Duration) -> Self? { Self(vus: vus, duration: duration) }

    var reportSettings: [String: String] { ["vus": "\(vus)", "duration": ExecutorText.duration(duration)] }

    func planDescription(work: String, layers: String) -> String {
        "\(vus) VUs for \(DurationText.format(duration)), iterations \(work), layer \(layers)"
    }

    /// VUs scaled; the duration as it is.
    func share(of segment: ExecutionTuple) -> ExecutorShare {
        var share = self
        share.vus = segment.scale(vus)
        return ExecutorShare(executor: share.executor, numbering: share.vus > 0 ? segment : nil)
    }
}
