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
        let share = executor.owner.share(of: segment)
        self.executor = share.executor
        numbering = share.numbering
        vuTasks = share.vuTasks
    }
}
