/// `constant-arrival-rate`: `rate` iterations per `timeUnit` start for `duration`, whatever the latency, from a pool
/// of `preAllocatedVUs` growing to `maxVUs`.
package struct ConstantArrivalRate: Sendable, Hashable {
    package var rate: Int
    package var timeUnit: Duration
    package var duration: Duration
    package var preAllocatedVUs: Int
    package var maxVUs: Int

    package init(rate: Int, timeUnit: Duration = .seconds(1), duration: Duration, preAllocatedVUs: Int, maxVUs: Int? = nil) {
        self.rate = rate
        self.timeUnit = timeUnit
        self.duration = duration
        self.preAllocatedVUs = preAllocatedVUs
        self.maxVUs = maxVUs ?? preAllocatedVUs
    }

    /// Iterations the schedule starts when none is dropped.
    package var plannedIterations: Int { OpenSchedule(self).plannedIterations }

    func validate() -> [ExecutorProblem] {
        maxVUs < preAllocatedVUs
            ? [.init(field: "maxVUs", problem: "is below preAllocatedVUs (\(preAllocatedVUs))", fix: "make maxVUs at least preAllocatedVUs, or leave it out")]
            : []
    }
}

/// `ramping-arrival-rate`: the start rate moves linearly from `startRate` through `stages` (targets in iterations
/// per `timeUnit`), from a pool of `preAllocatedVUs` growing to `maxVUs`.
package struct RampingArrivalRate: Sendable, Hashable {
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

    /// Iterations the schedule starts when none is dropped.
    package var plannedIterations: Int { OpenSchedule(self).plannedIterations }

    func validate() -> [ExecutorProblem] {
        var problems: [ExecutorProblem] = []
        if stages.isEmpty {
            problems.append(.init(field: "stages", problem: "no stages", fix: "add e.g. `stages: [{ duration: 1m, target: 100 }]`"))
        }
        if maxVUs < preAllocatedVUs {
            problems.append(
                .init(field: "maxVUs", problem: "is below preAllocatedVUs (\(preAllocatedVUs))", fix: "make maxVUs at least preAllocatedVUs, or leave it out"))
        }
        if !stages.isEmpty && max(startRate, stages.map(\.target).max() ?? 0) == 0 {
            problems.append(.init(field: "stages", problem: "every rate is 0, so nothing would start", fix: "give a stage a target above 0"))
        }
        return problems
    }
}
