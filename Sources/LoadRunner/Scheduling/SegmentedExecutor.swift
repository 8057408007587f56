/// An executor's share of the test under an execution segment, as k6 shares it out: the VUs (and a shared
/// iteration count) scaled by the segment's striping, and the numbering that says which iterations of the whole
/// test are this segment's — so generators running the segments of one sequence never run the same iteration, and
/// the payloads, seeds and GlobalIDs made from iteration numbers never meet.
///
/// - constant-vus, per-vu-iterations: VUs scaled; each VU's iterations and the duration as they are.
/// - ramping-vus: the whole test's stages; the segment runs the VUs whose numbers it owns, each active while the
///   whole test's VU count is above its number (k6's way: the shares add up at every moment of a ramp).
/// - shared-iterations: VUs scaled; the iterations split the way the VUs are (k6: the tuple re-split by the VU
///   count), numbered by that split.
/// - constant- and ramping-arrival-rate: the pool (preAllocatedVUs, maxVUs) scaled; the schedule is the whole
///   test's, and the segment starts the arrivals its re-split by maxVUs owns, at the times the whole test would.
struct SegmentedExecutor: Sendable {
    /// The executor with this segment's VUs and iterations.
    let executor: ExecutorConfig
    /// Numbers this segment's iterations: its `k`-th (from 0) is the whole test's `numbering.global(k)`; nil when the
    /// segment has no share of the executor's work.
    let numbering: ExecutionTuple?
    /// For ramping-vus: how many VU tasks this segment runs, and the whole test's number of each (its `k`-th is VU
    /// `vuNumbering.global(k)`); nil for the other executors, whose VU counts are scaled instead.
    private(set) var vuTasks: Int?
    let vuNumbering: ExecutionTuple

    init(_ executor: ExecutorConfig, segment: ExecutionTuple) {
        vuTasks = nil
        vuNumbering = segment
        guard segment.sequence.count > 1 else {
            self.executor = executor
            numbering = segment
            return
        }
        switch executor {
        case .sharedIterations(var c):
            let split = try? segment.split(by: c.vus)
            c.iterations = split?.scale(c.iterations) ?? 0
            c.vus = segment.scale(c.vus)
            self.executor = .sharedIterations(c)
            numbering = c.vus > 0 && c.iterations > 0 ? split : nil
        case .perVUIterations(var c):
            c.vus = segment.scale(c.vus)
            self.executor = .perVUIterations(c)
            numbering = c.vus > 0 ? segment : nil
        case .constantVUs(var c):
            c.vus = segment.scale(c.vus)
            self.executor = .constantVUs(c)
            numbering = c.vus > 0 ? segment : nil
        case .rampingVUs:
            self.executor = executor
            let tasks = segment.scale(executor.maxVUs)
            vuTasks = tasks
            numbering = tasks > 0 ? segment : nil
        case .constantArrivalRate(var c):
            numbering = Self.sharePool(&c.preAllocatedVUs, &c.maxVUs, segment)
            self.executor = .constantArrivalRate(c)
        case .rampingArrivalRate(var c):
            numbering = Self.sharePool(&c.preAllocatedVUs, &c.maxVUs, segment)
            self.executor = .rampingArrivalRate(c)
        }
    }

    /// Scales an arrival-rate pool to the segment; returns the numbering of its arrivals (the tuple re-split by the
    /// whole pool, as k6 does), or nil when the segment gets no VU.
    private static func sharePool(_ preAllocated: inout Int, _ max: inout Int, _ segment: ExecutionTuple) -> ExecutionTuple? {
        let split = try? segment.split(by: max)
        preAllocated = segment.scale(preAllocated)
        max = segment.scale(max)
        return max > 0 ? split : nil
    }
}
