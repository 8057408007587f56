/// The decisions of an arrival-rate scenario's dispatcher, as a pure machine: events in (a wake-up, an iteration
/// finished, the hard-stop deadline, cancellation), actions out (start an iteration, drop one, grow the pool, sleep
/// until the next is due, arm the deadline, cancel what runs). ``ScenarioScheduler`` is the thin shell that carries
/// the actions out on a task group and a clock; the machine reads no clock, so its tests drive it with plain offsets.
///
/// What it decides, as k6 does: an iteration due when every VU of the pool (`maxVUs`) is busy is dropped, not
/// queued; the pool grows from `preAllocatedVUs` to the most iterations ever in flight; once the schedule has
/// dispatched its last iteration the scenario ends when nothing is in flight, or at the schedule's end plus
/// `gracefulStop`, when what still runs is cancelled.
struct OpenDispatchMachine: Sendable {
    /// What happened, at `elapsed` from the scenario's start.
    enum Event: Sendable, Hashable {
        /// The dispatcher woke: at the start, or when the sleep it asked for ended.
        case wake
        /// An iteration ended.
        case finished
        /// The hard stop's sleep ended: `reached` when it got there, false when it was cancelled first.
        case deadline(reached: Bool)
        /// The scenario was cancelled (Ctrl-C, `abortOnFail`): no more iterations start.
        case cancel
    }

    /// What the shell does, in order.
    enum Action: Sendable, Hashable {
        /// Start the whole test's iteration `global`, measured from its intended start.
        case start(global: Int, intended: Duration)
        /// Count the iteration due at `intended` as dropped: no VU was free.
        case drop(intended: Duration)
        /// The pool now holds this many VUs.
        case growPool(to: Int)
        /// Wake the dispatcher at this offset (at most one such sleep is pending at a time).
        case sleep(until: Duration)
        /// Report the deadline at this offset: the schedule's end plus `gracefulStop`.
        case armDeadline(at: Duration)
        /// Cancel everything still running; the scenario is over once its tasks have returned.
        case cancelAll
    }

    private let schedule: OpenSchedule
    private let numbering: ExecutionTuple
    private let gracefulStop: Duration

    /// Iterations of this segment started or dropped so far.
    private(set) var dispatched = 0
    /// Iterations running now.
    private(set) var inFlight = 0
    /// VUs in the pool: the preallocated ones, or the most ever in flight.
    private(set) var poolSize: Int
    /// Why the scenario stopped, unless it was cancelled.
    private(set) var reason = ScenarioStopReason.durationDone

    private var stage = Stage.dispatching(sleeping: false)

    private enum Stage: Sendable, Hashable {
        /// Iterations are still due; `sleeping` when a wake-up is pending.
        case dispatching(sleeping: Bool)
        /// Every iteration has been dispatched; waiting for those in flight, or the deadline.
        case draining
        /// Everything was cancelled.
        case stopped
    }

    init(schedule: OpenSchedule, numbering: ExecutionTuple = .whole, gracefulStop: Duration) {
        self.schedule = schedule
        self.numbering = numbering
        self.gracefulStop = gracefulStop
        poolSize = schedule.preAllocatedVUs
    }

    /// The actions `event` at `elapsed` calls for.
    mutating func handle(_ event: Event, at elapsed: Duration) -> [Action] {
        var actions: [Action] = []
        switch (event, stage) {
        case (_, .stopped):
            return []
        case (.wake, .dispatching):
            stage = .dispatching(sleeping: false)
        case (.wake, .draining):
            break
        case (.finished, _):
            inFlight -= 1
            if stage == .draining && inFlight == 0 { return stop() }
        case (.deadline(let reached), .draining):
            if reached && inFlight > 0 {
                reason = .gracefulStop
                return stop()
            }
            return []
        case (.deadline, .dispatching):
            // The deadline is armed only once dispatching is over.
            assertionFailure("deadline while dispatching")
            return []
        case (.cancel, .dispatching):
            return actions + drain()
        case (.cancel, .draining):
            return []
        }
        guard case .dispatching(let sleeping) = stage else { return actions }
        while true {
            // The segment's `dispatched`-th arrival is the whole test's `global`-th, due when the whole test's is.
            let global = numbering.global(dispatched)
            switch schedule.pace(elapsed: elapsed, started: global) {
            case .done:
                return actions + drain()
            case .start(let intended):
                dispatched += 1
                guard inFlight < schedule.maxVUs else {
                    actions.append(.drop(intended: intended))
                    continue
                }
                inFlight += 1
                if inFlight > poolSize {
                    poolSize = inFlight
                    actions.append(.growPool(to: poolSize))
                }
                actions.append(.start(global: global, intended: intended))
            case .wait(let until):
                if !sleeping {
                    stage = .dispatching(sleeping: true)
                    actions.append(.sleep(until: until))
                }
                return actions
            }
        }
    }

    /// Dispatching is over: stop now when nothing runs, else wait for the deadline.
    private mutating func drain() -> [Action] {
        guard inFlight > 0 else { return stop() }
        stage = .draining
        return [.armDeadline(at: schedule.end + gracefulStop)]
    }

    private mutating func stop() -> [Action] {
        stage = .stopped
        return [.cancelAll]
    }
}
