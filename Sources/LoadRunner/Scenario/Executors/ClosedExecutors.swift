/// `shared-iterations`: `vus` VUs share `iterations`; the scenario ends when all are done or at `maxDuration`.
package struct SharedIterations: Sendable, Hashable {
    package var vus: Int
    package var iterations: Int
    package var maxDuration: Duration

    package init(vus: Int = 1, iterations: Int = 1, maxDuration: Duration = .seconds(600)) {
        self.vus = vus
        self.iterations = iterations
        self.maxDuration = maxDuration
    }
}

/// `per-vu-iterations`: each of `vus` VUs runs `iterations` iterations, or until `maxDuration`.
package struct PerVUIterations: Sendable, Hashable {
    package var vus: Int
    package var iterations: Int
    package var maxDuration: Duration

    package init(vus: Int = 1, iterations: Int = 1, maxDuration: Duration = .seconds(600)) {
        self.vus = vus
        self.iterations = iterations
        self.maxDuration = maxDuration
    }
}

/// `constant-vus`: `vus` VUs loop for `duration`.
package struct ConstantVUs: Sendable, Hashable {
    package var vus: Int
    package var duration: Duration

    package init(vus: Int = 1, duration: Duration) {
        self.vus = vus
        self.duration = duration
    }
}

/// `ramping-vus`: the number of looping VUs moves from `startVUs` through `stages`; VUs above a falling target
/// finish their iteration (within `gracefulRampDown`) and wait.
package struct RampingVUs: Sendable, Hashable {
    package var startVUs: Int
    package var stages: [Stage]
    package var gracefulRampDown: Duration

    package init(startVUs: Int = 1, stages: [Stage], gracefulRampDown: Duration = .seconds(30)) {
        self.startVUs = startVUs
        self.stages = stages
        self.gracefulRampDown = gracefulRampDown
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
}
