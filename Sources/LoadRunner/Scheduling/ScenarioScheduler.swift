import Synchronization

/// Runs one scenario's iterations on its executor's schedule and folds their samples into its recorder.
///
/// Closed-model executors run one long-lived task per VU, each asking ``ClosedSchedule`` before every iteration.
/// Arrival-rate executors run a dispatcher loop (the parent of a task group, in the shape of service-lifecycle's
/// `ServiceGroup`): it asks ``OpenSchedule`` what is due, starts each due iteration as a child with its *intended*
/// start when a VU of the pool is free, counts it as dropped when none is, and sleeps through a ticker child
/// until the next is due. In both, the schedule's end plus `gracefulStop` is a hard stop: iterations still running
/// then are cancelled. Cancelling the calling task stops everything at once.
struct ScenarioScheduler<C: Clock<Duration>>: Sendable {
    let spec: ScenarioSpec
    let operations: [any LoadOperation]
    let picker: OperationPicker
    let recorder: ScenarioRecorder
    let clock: C
    /// The run's start, which sample times are measured from.
    let runStart: C.Instant
    /// Iteration numbers are unique across the run: scenario `k` numbers from `indexBase`.
    let indexBase: Int
    let seed: UInt64
    /// This generator's execution segment: its share of the VUs, and which of the whole test's iterations are its own
    /// (their numbers are the whole test's, so payloads never meet another generator's).
    var segment: ExecutionTuple = .whole
    /// Where iterations run: the transport's driver thread when it offers one (a VU's round trip then wakes no other
    /// thread), else the global executor.
    var executor: (any TaskExecutor)?

    /// Runs the scenario from now until its schedule ends (or the hard stop) and returns why it stopped.
    func run() async -> ScenarioStopReason {
        let share = SegmentedExecutor(spec.executor, segment: segment)
        // A segment too thin for any of this executor's work runs nothing, for as long as the others run, so that a
        // scenario started after this one starts with theirs.
        guard let numbering = share.numbering else {
            if !spec.executor.owner.endsAfterIterations { try? await clock.sleep(for: spec.executor.scheduledDuration) }
            return Task.isCancelled ? .cancelled : .durationDone
        }
        if let closed = ClosedSchedule(share.executor) {
            return await runClosed(closed, numbering: numbering, vuTasks: share.vuTasks ?? closed.vus, vuNumbering: share.vuNumbering)
        }
        if let open = OpenSchedule(share.executor) { return await runOpen(open, numbering: numbering) }
        return .durationDone
    }

    private enum Event: Sendable {
        case vuFinished(ScenarioStopReason)
        case iterationFinished
        case tick
        case deadline(reached: Bool)
    }

    /// Runs `vuTasks` VUs, the `k`-th being VU `vuNumbering.global(k)` of the whole test (which a ramping schedule
    /// activates by number).
    private func runClosed(
        _ schedule: ClosedSchedule, numbering: ExecutionTuple, vuTasks: Int, vuNumbering: ExecutionTuple
    ) async -> ScenarioStopReason {
        let start = clock.now
        let counter = Counter()
        recorder.recordPoolSize(vuTasks)
        return await withTaskGroup(of: Event.self) { group in
            for vu in 0..<vuTasks {
                let number = vuNumbering.global(vu)
                group.addTask(executorPreference: executor) {
                    .vuFinished(await runVU(number, schedule: schedule, start: start, counter: counter, numbering: numbering))
                }
            }
            group.addTask { await deadline(start.advanced(by: schedule.end + spec.gracefulStop)) }
            var running = vuTasks
            var reason: ScenarioStopReason?
            while let event = await group.next() {
                switch event {
                case .vuFinished(let stop):
                    running -= 1
                    // A VU cancelled by the hard stop reports `.cancelled`; the scenario stopped for `.gracefulStop`.
                    if reason == nil { reason = stop }
                    if running == 0 { group.cancelAll() }
                case .deadline(let reached):
                    if reached && running > 0 {
                        reason = .gracefulStop
                        group.cancelAll()
                    }
                case .iterationFinished, .tick:
                    break
                }
            }
            return Task.isCancelled ? .cancelled : (reason ?? .durationDone)
        }
    }

    private func runVU(_ vu: Int, schedule: ClosedSchedule, start: C.Instant, counter: Counter, numbering: ExecutionTuple) async -> ScenarioStopReason
    {
        let log = RequestLog()
        return await RequestLog.$current.withValue(log) {
            var vuIteration = 0
            while true {
                if Task.isCancelled { return .cancelled }
                let claimed = counter.value.wrappingAdd(1, ordering: .relaxed).oldValue
                let now = clock.now
                switch schedule.decide(vu: vu, vuIteration: vuIteration, claimed: claimed, elapsed: start.duration(to: now)) {
                case .stop(let reason):
                    return reason
                case .wait(let until):
                    try? await clock.sleep(until: start.advanced(by: until), tolerance: nil)
                case .start:
                    let global = numbering.global(claimed)
                    await iterate(index: indexBase + global, intended: now, log: log)
                    vuIteration += 1
                    if let thinkTime = spec.thinkTime, !Task.isCancelled {
                        try? await clock.sleep(for: thinkTime.pause(index: global, seed: seed))
                    }
                }
            }
        }
    }

    /// Carries out ``OpenDispatchMachine``'s actions on a task group: iterations, the ticker that wakes the
    /// dispatcher when the next one is due, and the hard-stop deadline are its children.
    private func runOpen(_ schedule: OpenSchedule, numbering: ExecutionTuple) async -> ScenarioStopReason {
        let start = clock.now
        var machine = OpenDispatchMachine(schedule: schedule, numbering: numbering, gracefulStop: spec.gracefulStop)
        recorder.recordPoolSize(machine.poolSize)
        return await withTaskGroup(of: Event.self) { group in
            var event: OpenDispatchMachine.Event? = .wake
            var cancelSeen = false
            while true {
                var actions: [OpenDispatchMachine.Action] = []
                if Task.isCancelled && !cancelSeen {
                    cancelSeen = true
                    actions += machine.handle(.cancel, at: start.duration(to: clock.now))
                }
                if let event { actions += machine.handle(event, at: start.duration(to: clock.now)) }
                for action in actions {
                    switch action {
                    case .start(let global, let intended):
                        let index = indexBase + global
                        let intendedInstant = start.advanced(by: intended)
                        group.addTask(executorPreference: executor) {
                            let log = RequestLog()
                            await RequestLog.$current.withValue(log) { await iterate(index: index, intended: intendedInstant, log: log) }
                            return .iterationFinished
                        }
                    case .drop(let intended):
                        recorder.recordDropped(at: runStart.duration(to: start.advanced(by: intended)))
                    case .growPool(let size):
                        recorder.recordPoolSize(size)
                    case .sleep(let until):
                        group.addTask {
                            try? await clock.sleep(until: start.advanced(by: until), tolerance: nil)
                            return .tick
                        }
                    case .armDeadline(let at):
                        group.addTask { await deadline(start.advanced(by: at)) }
                    case .cancelAll:
                        group.cancelAll()
                    }
                }
                guard let next = await group.next() else { break }
                switch next {
                case .iterationFinished: event = .finished
                case .tick: event = .wake
                case .deadline(let reached): event = .deadline(reached: reached)
                case .vuFinished: event = nil
                }
            }
            return Task.isCancelled ? .cancelled : machine.reason
        }
    }

    /// Sleeps until `instant`; says whether it got there (false when cancelled first).
    private func deadline(_ instant: C.Instant) async -> Event {
        do {
            try await clock.sleep(until: instant, tolerance: nil)
            return .deadline(reached: true)
        } catch {
            return .deadline(reached: false)
        }
    }

    /// Runs iteration `index` and records it, unless the run was cancelled under it.
    private nonisolated(nonsending) func iterate(index: Int, intended: C.Instant, log: RequestLog) async {
        let operation = picker.pick(index)
        recorder.iterationStarted()
        var sample = IterationSample(operation: operation, intendedStart: runStart.duration(to: intended))
        await operations[operation].perform(index: index, sample: &sample)
        sample.end = runStart.duration(to: clock.now)
        sample.requests = log.drain()
        if Task.isCancelled && sample.requests.isEmpty && sample.editsApplied == 0 {
            recorder.iterationAbandoned()
        } else {
            recorder.record(sample)
        }
    }
}

/// The run-wide iteration counter of one scenario's VUs.
final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
