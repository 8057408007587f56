extension ExecutorConfig {
    /// The executor's kind.
    package var kind: ExecutorKind { type(of: owner).kind }

    /// The executor names, as in k6.
    package static var names: [String] { ExecutorKind.allCases.map(\.rawValue) }

    /// k6's name of this executor.
    package var name: String { kind.rawValue }

    /// True for the arrival-rate executors, whose latency is measured from each iteration's intended start.
    var isOpenModel: Bool {
        if case .open = owner.schedule { return true }
        return false
    }

    /// The most VUs the executor ever runs at once (the connections it needs).
    package var maxVUs: Int { owner.maxVUs }

    /// How long after the scenario's start new iterations may begin: `maxDuration`, `duration`, or the stages' total.
    package var scheduledDuration: Duration { owner.scheduledDuration }

    /// The iterations the executor plans, when it has a fixed count.
    package var plannedIterations: Int? { owner.plannedIterations }

    /// Cross-field problems in the settings (ranges of single fields are checked while reading them).
    package func validate() -> [ExecutorProblem] { owner.validate() }

    /// One line saying what the executor runs, e.g. `100 iterations × 1 adds, 8 VUs, layer 0`.
    package func planDescription(work: String, layers: String) -> String { owner.planDescription(work: work, layers: layers) }
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
