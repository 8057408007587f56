/// `constant-arrival-rate`: `rate` iterations per `timeUnit` start for `duration`, whatever the latency, from a pool
/// of `preAllocatedVUs` growing to `maxVUs`.
package struct ConstantArrivalRate: ExecutorKindSettings {
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

    static let kind = ExecutorKind.constantArrivalRate
    static let keys: [any ScenarioKeyDeclaration] = [
        ScenarioKey.rate, ScenarioKey.timeUnit, ScenarioKey.duration, ScenarioKey.preAllocatedVUs, ScenarioKey.maxVUs,
    ]
    static let requiredKeys = ["rate", "duration", "preAllocatedVUs"]
    static func missingKeyHint(_ key: String) -> String { ArrivalRatePool.missingKeyHint(key) }

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self? {
        let rate = input.read(.rate, &reader)
        let unit = input.read(.timeUnit, &reader)
        let duration = input.read(.duration, &reader)
        let pool = ArrivalRatePool.read(input, &reader)
        guard let rate, let duration, let pool else { return nil }
        return Self(rate: rate, timeUnit: unit, duration: duration, preAllocatedVUs: pool.preAllocatedVUs, maxVUs: pool.maxVUs)
    }

    /// Iterations the schedule starts when none is dropped.
    package var plannedIterations: Int? { OpenSchedule(self).plannedIterations }

    var executor: ExecutorConfig { .constantArrivalRate(self) }
    var scheduledDuration: Duration { duration }
    var schedule: ExecutorSchedule { .open(OpenSchedule(self)) }

    func validate() -> [ExecutorProblem] { ArrivalRatePool.problems(preAllocatedVUs: preAllocatedVUs, maxVUs: maxVUs) }

    func applying(_ overrides: ScenarioOverrides) -> Self {
        var settings = self
        settings.duration = overrides.duration ?? duration
        return settings
    }

    func sweeping(_ parameter: Sweep.Parameter, _ value: Int) -> Self? {
        guard parameter == .rate else { return nil }
        var settings = self
        settings.rate = value
        return settings
    }

    func lasting(_ duration: Duration) -> Self? {
        var settings = self
        settings.duration = duration
        return settings
    }

    var reportSettings: [String: String] {
        [
            "rate": "\(rate)", "timeUnit": ExecutorText.duration(timeUnit), "duration": ExecutorText.duration(duration),
            "preAllocatedVUs": "\(preAllocatedVUs)", "maxVUs": "\(maxVUs)",
        ]
    }

    func planDescription(work: String, layers: String) -> String {
        "\(rate) iterations per \(DurationText.format(timeUnit)) for \(DurationText.format(duration)) \(work), up to \(maxVUs) VUs, layer \(layers)"
    }

    func share(of segment: ExecutionTuple) -> ExecutorShare {
        var share = self
        let numbering = ArrivalRatePool.share(&share.preAllocatedVUs, &share.maxVUs, segment)
        return ExecutorShare(executor: share.executor, numbering: numbering)
    }
}

/// What the two arrival-rate executors share: a pool of VUs that serves their arrivals.
enum ArrivalRatePool {
    /// `preAllocatedVUs` (required) and `maxVUs` (default preAllocatedVUs); nil when preAllocatedVUs is missing or refused.
    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> (preAllocatedVUs: Int, maxVUs: Int?)? {
        let preAllocated = input.read(.preAllocatedVUs, &reader)
        let max = input.read(.maxVUs, &reader)
        return preAllocated.map { ($0, max) }
    }

    static func problems(preAllocatedVUs: Int, maxVUs: Int) -> [ExecutorProblem] {
        maxVUs < preAllocatedVUs
            ? [
                .init(
                    field: "maxVUs", problem: "is below preAllocatedVUs (\(preAllocatedVUs))",
                    fix: "make maxVUs at least preAllocatedVUs, or leave it out")
            ]
            : []
    }

    static func missingKeyHint(_ key: String) -> String {
        key == "vus" ? ": its VUs are a pool (preAllocatedVUs, maxVUs) that serves its arrival rate" : ""
    }

    /// Scales the pool to the segment; returns the numbering of its arrivals (the tuple re-split by the whole pool,
    /// as k6 does), or nil when the segment gets no VU. The schedule is the whole test's: the segment starts the
    /// arrivals its re-split owns, at the times the whole test would.
    static func share(_ preAllocated: inout Int, _ max: inout Int, _ segment: ExecutionTuple) -> ExecutionTuple? {
        let split = try? segment.split(by: max)
        preAllocated = segment.scale(preAllocated)
        max = segment.scale(max)
        return max > 0 ? split : nil
    }
}
