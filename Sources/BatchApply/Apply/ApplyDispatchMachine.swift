import FeatureModel
import FeatureServiceClient

/// The decisions of a ``BatchApplier`` run as a pure state machine: the shell reports what happened — a batch read,
/// a batch answered, a probe answered, time passed, cancellation — and the machine says what to do next.
///
/// It decides everything the run decides: which batch starts next and when (plan order, at most `concurrency` in
/// flight, paced by `rate`, a barrier batch only once nothing is in flight), what a batch's answer means (outcomes to
/// record, features whose later edits wait, a service out of reach), when outcomes are written (with the next batch's
/// `sending` mark, else at least every 100 ms, and before any long wait), how an outage is ridden out (no new batch;
/// the batches it stopped go back, those that may have reached the service looked up first; the service probed with a
/// growing pause until ``BatchApplier/serviceWait`` is over) and what the run's ``BatchApplier/Summary`` says. No I/O,
/// no clock (the time comes with each event), no task: the same events give the same actions, so every path is tested
/// without a service or a journal.
///
/// Every action but ``Action/finish(_:)`` is answered by exactly one event; the shell tells the machine of a
/// cancelled task with ``cancel()`` before it hands over the next event.
///
/// ```swift
/// var machine = ApplyDispatchMachine(configuration, inDoubt: ids, start: clock.now)
/// var action = machine.begin(now: clock.now)
/// while true {
///     switch action {
///     case .send(let batch, let outcomes): /* mark it sending after the outcomes, start its task */ event = .sent
///     case .awaitAnswer: event = .answered(/* the next task's result */)
///     // … one case per action
///     case .finish(let summary): return summary
///     }
///     if Task.isCancelled { machine.cancel() }
///     action = machine.handle(event, now: clock.now)
/// }
/// ```
struct ApplyDispatchMachine<Instant: InstantProtocol<Duration>>: Sendable {
    /// What a run is asked to do.
    struct Configuration: Sendable {
        /// Batches in flight at most (at least 1).
        var concurrency: Int
        /// Edits per batch, which sizes the window of batches read at a time.
        var batchSize: Int
        /// Edits a second at most; nil or zero: no limit.
        var rate: Double?
        /// How long to wait for a service that cannot be reached before the run stops.
        var serviceWait: Duration
        /// The longest pause between two probes of a service that cannot be reached.
        var probeInterval: Duration
        /// Whether the batches come from a plan still being made (``Action/awaitPlan``) rather than the journal's
        /// open batches (``Action/listOpen``).
        var streamingPlan: Bool
        /// Whether an event the current stage cannot receive stops a debug build (it is always recorded in
        /// ``BatchApplier/Summary/anomalies``); off only in the tests that feed such events.
        var trapsImpossibleEvents = true
    }

    /// Outcomes the journal has not written yet.
    struct Outcomes: Sendable {
        var edits: [(batch: Int, records: [EditRecord], state: JournalBatch.State)] = []
        var files: [FileRecord] = []

        var isEmpty: Bool { edits.isEmpty && files.isEmpty }
    }

    /// What the shell does next.
    enum Action: Sendable {
        /// Look batch `batch` in doubt up by GlobalID (``BatchApplier/reconcile(_:)``), with `waitingForService` as
        /// the run's start does it (``BatchApplier/waitingForService(_:probeInterval:clock:_:)``); then report
        /// ``Event/lookedUp(found:)``, ``Event/lookUpUnavailable(_:)`` or (without waiting) ``Event/cancelled``.
        case lookUp(batch: Int, waitingForService: Bool)
        /// Read the journal's open batches and edits; report ``Event/opened(batches:edits:)``.
        case listOpen
        /// Wait for the plan's next batches; report ``Event/planned(_:)`` or ``Event/planEnded``.
        case awaitPlan
        /// Read these batches for sending; report ``Event/read(_:)``.
        case read([Int])
        /// Sleep until the instant (the rate's pace), then report ``Event/woke``.
        case sleep(until: Instant)
        /// Write the outcomes and mark the batch `sending` in one transaction, start its request, report ``Event/sent``.
        case send(JournalBatch, after: Outcomes)
        /// Wait for the next batch in flight to come back; report ``Event/answered(_:)``.
        case awaitAnswer
        /// Write the outcomes; report ``Event/recorded``.
        case record(Outcomes)
        /// Show the progress; report ``Event/reported``.
        case report(BatchApplier.Progress)
        /// Sleep until `at`, then probe the service with a count of `layer`; report ``Event/probeAnswered``,
        /// ``Event/probeFailed`` or ``Event/cancelled``.
        case probe(layer: Int, at: Instant)
        /// The run is over: this is what it did.
        case finish(BatchApplier.Summary)
    }

    /// What happened, in answer to the last action.
    enum Event: Sendable {
        /// How a report names it.
        var name: String {
            switch self {
            case .lookedUp: "a look-up's answer"
            case .lookUpUnavailable: "a look-up that found the service out of reach"
            case .opened: "the open batches"
            case .planned: "planned batches"
            case .planEnded: "the end of the plan"
            case .read: "batches read"
            case .woke: "the end of a sleep"
            case .sent: "a batch sent"
            case .recorded: "outcomes written"
            case .reported: "progress shown"
            case .answered: "a batch's answer"
            case .probeAnswered: "a probe's answer"
            case .probeFailed: "a failed probe"
            case .cancelled: "cancellation"
            }
        }

        /// A batch in doubt was looked up: `found` of its adds were applied.
        case lookedUp(found: Int)
        /// A look-up found the service out of reach (at the start: for the whole wait), for this reason.
        case lookUpUnavailable(String)
        /// The journal's open batches, in order, and how many edits they hold.
        case opened(batches: [Int], edits: Int)
        /// The plan completed these batches.
        case planned([Int])
        /// The plan is made (or the wait for it was cancelled).
        case planEnded
        /// The batches read, as the journal holds them.
        case read([JournalBatch])
        /// A sleep is over (or was cut short by cancellation).
        case woke
        /// A batch was marked and its request started.
        case sent
        /// Outcomes were written.
        case recorded
        /// Progress was shown.
        case reported
        /// A batch in flight came back.
        case answered(BatchApplier.BatchResult)
        /// The service answered a probe (any answer, a refusal included).
        case probeAnswered
        /// A probe found the service still out of reach.
        case probeFailed
        /// The task was cancelled while the action was under way.
        case cancelled
    }

    /// Where the run stands.
    enum Stage: Sendable {
        /// How a report names it.
        var name: String {
            switch self {
            case .settling: "settling batches in doubt"
            case .listing: "listing open batches"
            case .sending: "sending"
            case .pausing: "pausing for a service out of reach"
            case .probing: "probing the service"
            case .lookingUp: "looking up batches an outage stopped"
            case .rereading: "reading batches an outage stopped"
            case .finishing: "writing the last outcomes"
            case .finished: "finished"
            }
        }

        /// Looking up, before anything is sent, the batch in doubt at this index of ``inDoubt``.
        case settling(next: Int)
        /// Reading the journal's open batches.
        case listing
        /// Sending batches (or waiting for those in flight).
        case sending
        /// About to wait for a service out of reach, until this deadline (once what came back is written).
        case pausing(until: Instant)
        /// Waiting for a service out of reach.
        case probing(OutageProbes<Instant>)
        /// The service answers again: looking up the batches the outage stopped that may have reached it.
        case lookingUp
        /// Reading the batches the outage stopped, to send them again.
        case rereading
        /// Writing the last outcomes.
        case finishing
        case finished
    }

    /// A batch in flight: what went, and the records of its edits held back.
    struct InFlight: Sendable {
        var sent: JournalBatch
        var withheld: [EditRecord]
    }

    /// A batch the outage stopped: to look up first when it may have reached the service.
    struct Stopped: Sendable, Hashable {
        var id: Int
        var layer: Int
        var inDoubt: Bool
    }

    /// A service found out of reach, from the first batch that found it so until the batches it stopped are read to
    /// be sent again.
    struct Outage: Sendable {
        /// Since when, from the run's start.
        var began: Duration
        /// How the last batch or look-up found it.
        var reason: String
        /// The batches that found it so, in the order they came back.
        var stopped: [Stopped] = []
    }

    let configuration: Configuration
    let start: Instant
    /// Batches read at a time, and the most outcomes held before they are written.
    let window: Int
    /// Batches in doubt when the run starts, looked up first.
    let inDoubt: [Int]
    var stage: Stage
    var summary = BatchApplier.Summary()
    var progress: BatchApplier.Progress
    var cancelled = false
    /// Batches not read yet, in plan order.
    var queue: ArraySlice<Int> = []
    /// Whether a plan still being made may give more batches.
    var planOpen: Bool
    var ready: [JournalBatch] = []
    var readyIndex = 0
    var inFlight: [Int: InFlight] = [:]
    /// Whether more batches may start now (cleared once one cannot).
    var filling = true
    /// A barrier batch waiting for the batches before it to finish.
    var held: JournalBatch?
    /// A batch waiting for its time at the rate's pace.
    var paced: JournalBatch?
    /// The features whose edits in this run did not apply (failed, or of unknown outcome): a later edit of such a
    /// feature is not sent, since it would reach the service before the earlier one, which `--resume` sends again.
    var unsettled: Set<FeatureKey> = []
    var editsStarted = 0
    /// Time spent waiting for the service, left out of the rate's pace.
    var pausedFor = Duration.zero
    /// The service out of reach; nil while it answers.
    var outage: Outage?
    var unrecorded = Outcomes()
    var lastRecorded: Instant
    var recordDue = false
    var pendingReport: BatchApplier.Progress?

    /// A run starting at `start` that first looks up the batches `inDoubt`.
    init(_ configuration: Configuration, inDoubt: [Int], start: Instant) {
        var configuration = configuration
        configuration.concurrency = max(1, configuration.concurrency)
        self.configuration = configuration
        self.start = start
        self.inDoubt = inDoubt
        window = max(configuration.concurrency * 2, min(256, 16_384 / max(1, configuration.batchSize)))
        stage = .settling(next: 0)
        planOpen = configuration.streamingPlan
        progress = BatchApplier.Progress(
            settled: 0, total: 0, applied: 0, rejected: 0, failed: 0, retries: 0, elapsed: .zero, planning: configuration.streamingPlan)
        lastRecorded = start
    }

    /// The first action.
    mutating func begin(now: Instant) -> Action {
        next(now)
    }

    /// The task was cancelled: no batch starts any more, and the run ends once those in flight are back.
    mutating func cancel() {
        cancelled = true
    }

    /// Takes in what happened in answer to the last action, at `now`, and says what to do next.
    mutating func handle(_ event: Event, now: Instant) -> Action {
        if case .cancelled = event { cancelled = true }
        switch (stage, event) {
        case (.settling(let index), .lookedUp(let found)):
            summary.reconciledBatches += 1
            summary.reconciledApplied += found
            stage = .settling(next: index + 1)
        case (.settling, .lookUpUnavailable(let reason)):
            // Nothing was sent: the batches in doubt stay so, for the next resume.
            summary.unavailable = reason
            summary.outages = 1
            summary.outageTime = start.duration(to: now)
            summary.elapsed = start.duration(to: now)
            stage = .finished
            return .finish(summary)
        case (.listing, .opened(let batches, let edits)):
            queue = batches[...]
            progress.total = edits
            stage = .sending
        case (.sending, .planned(let ids)):
            queue.append(contentsOf: ids)
        case (.sending, .planEnded):
            planOpen = false
            progress.planning = false
        case (.sending, .read(let batches)):
            ready = batches
            readyIndex = 0
            // A plan still being made: the edits to settle are counted as their batches are read (those settled by
            // an earlier run are not open, and not counted).
            if configuration.streamingPlan { progress.total += batches.reduce(0) { $0 + $1.edits.count } }
        case (.finishing, .recorded):
            stage = .finished
        case (.finished, _):
            // Nothing is asked once the run is over.
            impossible(event)
        case (.sending, .sent), (_, .recorded):
            // Outcomes are written whenever they are due, before the stage decides (``next(_:)``).
            lastRecorded = now
        case (.sending, .answered(let result)):
            fold(result, now: now)
        case (.probing, .probeFailed):
            return nextProbe(now: now)
        case (.probing, .probeAnswered):
            stage = .lookingUp
        case (.probing, .cancelled):
            return gaveUp(now: now)
        case (.lookingUp, .lookedUp(let found)):
            lookedUp(found: found)
        case (.lookingUp, .lookUpUnavailable(let reason)):
            // Out of reach again while they were looked up: wait on, to the same deadline.
            outage?.reason = reason
            stage = .sending
            filling = true
        case (.lookingUp, .cancelled):
            summary.outageTime += start.duration(to: now) - (outage?.began ?? .zero)
            return finish()
        case (.rereading, .read(let batches)):
            resume(with: batches)
        case (.sending, .woke), (_, .reported):
            // A sleep at the rate's pace is over (the next batch's turn), or progress was shown (as outcomes, whenever
            // due): nothing to decide.
            break
        default:
            impossible(event)
        }
        return next(now)
    }

    /// The next action, from where the run stands.
    mutating func next(_ now: Instant) -> Action {
        if recordDue {
            recordDue = false
            return .record(takeOutcomes())
        }
        if let report = pendingReport {
            pendingReport = nil
            return .report(report)
        }
        switch stage {
        case .settling(let index):
            if !cancelled, index < inDoubt.count { return .lookUp(batch: inDoubt[index], waitingForService: true) }
            if configuration.streamingPlan {
                stage = .sending
                return sending(now)
            }
            stage = .listing
            return .listOpen
        case .listing: return .listOpen
        case .sending: return sending(now)
        case .pausing: return startProbing(now: now)
        case .probing: return nextProbe(now: now)
        case .lookingUp: return lookUpNext(now: now)
        case .rereading: return .read(outage?.stopped.map(\.id) ?? [])
        case .finishing: return .record(takeOutcomes())
        case .finished:
            var summary = self.summary
            if cancelled { summary.interrupted = true }
            summary.elapsed = start.duration(to: now)
            return .finish(summary)
        }
    }

    /// An event the stage cannot have asked for (the shell answered an action with the wrong event, or the machine
    /// asked for one in a stage that does not take its answer): a debug build stops on it; a release build records it
    /// in the summary, which the run's report shows, and decides as if nothing had happened.
    mutating func impossible(_ event: Event) {
        let anomaly = "the applier's dispatcher ignored \(event.name) while \(stage.name)"
        if configuration.trapsImpossibleEvents { assertionFailure(anomaly) }
        summary.anomalies.append(anomaly)
    }

    /// The outcomes not written yet, which the action returned writes.
    mutating func takeOutcomes() -> Outcomes {
        defer { unrecorded = Outcomes() }
        return unrecorded
    }

    /// Ends the run: what came back is written (also after cancellation; batches marked and never answered stay in
    /// doubt), then ``Action/finish(_:)``.
    mutating func finish() -> Action {
        stage = .finishing
        return .record(takeOutcomes())
    }
}
