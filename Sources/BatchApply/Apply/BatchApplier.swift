import FeatureModel
package import FeatureServiceClient
import Foundation

/// Sends a journal's planned batches to the service, `concurrency` requests at a time and at most `rate` edits a
/// second, and records each edit's outcome; on a resumed journal it first settles the batches left in doubt.
///
/// ```
///  journal (planned batches) ──► parent loop ──► child task per batch: applyEdits, retried exactly once
///        ▲                       ▲     │  (≤ concurrency in flight, paced by rate)        │
///        │        events ────────┘     ▼ actions                                          │
///        │                 ApplyDispatchMachine (pure: what starts when, what to write)   │
///        └──── outcomes, one transaction per batch ◄───────── BatchResult ◄──────────────┘
/// ```
///
/// Every decision of the run is ``ApplyDispatchMachine``'s; the parent loop only carries its actions out (sends in a
/// task group, journal writes, sleeps on the clock, probes) and tells it what came of each.
///
/// Each batch goes through the client's retried applyEdits (``FeatureLayerClient/applyEdits(_:options:retry:globalIdField:)``):
/// adds carry client GlobalIDs and are sent with `useGlobalIds=true`, so a replay is recognised as a duplicate and
/// nothing is added twice. A batch is marked `sending` in the journal before its request goes out; when the process
/// dies before its outcomes are written, the next run finds it in doubt and looks its adds up by GlobalID before
/// sending what is still missing. Updates are resent as they are (idempotent); a delete that finds its feature gone
/// counts as applied.
///
/// A batch is marked `sending` just before its request goes out, in one transaction with the outcomes that came back
/// since the last mark (else written at least every 100 ms): after a crash, the batches in doubt are at most those
/// whose requests were out; a batch whose every attempt was refused before anything could apply (HTTP 503 or 429) is
/// not left in doubt. Every request the run makes — applyEdits, look-ups of batches in doubt, file checks — is
/// retried with ``retry``.
///
/// Batches start in plan order. A barrier batch (it edits a feature an earlier batch edits) waits until no batch is
/// in flight, so the earlier edit has its outcome first.
///
/// A service that cannot be reached (no connection, timeouts, HTTP 502, 503 or 504 once a batch's retries gave up), or
/// that keeps throttling (HTTP 429 through all of them), pauses the run rather than failing batch after batch: no new batch starts, the batches it stopped go back to be
/// sent again (those that may have reached the service are looked up by GlobalID first), and the service is probed
/// with a growing pause until it answers, when the run goes on. After ``serviceWait`` of that the run stops, every
/// batch not applied left for `--resume` (``Summary/unavailable``).
///
/// Cancelling the task (Ctrl-C) stops new batches; batches in flight are cancelled and stay in doubt, to be settled
/// by `--resume`, while batches read but not started were never marked. Only the parent writes
/// to the journal.
package struct BatchApplier: Sendable {
    package let journal: ApplyJournal
    package let service: FeatureService
    package let settings: ApplySettings
    package let retry: RetryPolicy
    /// The GlobalID and object-ID fields of each layer the plan names.
    package let keys: [Int: (objectIdField: String, globalIdField: String?)]
    /// How long a run waits for a service that cannot be reached before it stops; zero fails the batches instead, each
    /// after its retries.
    package var serviceWait: Duration = Self.defaultServiceWait
    /// The default ``serviceWait``: 15 minutes.
    package static let defaultServiceWait = Duration.seconds(900)
    /// The longest pause between two probes of a service that cannot be reached.
    var probeInterval: Duration = .seconds(30)
    /// Where each answered batch is also counted for a scrape while the run lasts (`apply --metrics-listen`).
    package var liveMetrics: ApplyLiveMetrics?

    /// The default retry policy of an apply: patient enough for an overnight run against a throttling service.
    package static let defaultRetry = RetryPolicy(
        maximumAttempts: 8, initialBackoff: .milliseconds(200), maximumBackoff: .seconds(30), budget: .seconds(300))

    package init(
        journal: ApplyJournal, service: FeatureService, settings: ApplySettings, retry: RetryPolicy = BatchApplier.defaultRetry,
        keys: [Int: (objectIdField: String, globalIdField: String?)]
    ) {
        self.journal = journal
        self.service = service
        self.settings = settings
        self.retry = retry
        self.keys = keys
    }

    /// Where a run stands, for progress lines.
    package struct Progress: Sendable, Hashable {
        /// Edits with an outcome recorded in this run.
        package var settled: Int
        /// Edits this run set out to settle.
        package var total: Int
        package var applied: Int
        package var rejected: Int
        package var failed: Int
        package var retries: Int
        package var elapsed: Duration
        /// Whether the input is still being planned (the total still grows).
        package var planning = false
        /// How the service could not be reached, while the run waits for it.
        package var unavailable: String?
    }

    /// What a run did.
    package struct Summary: Sendable, Hashable {
        /// Batches found in doubt and settled against the service before sending.
        package var reconciledBatches = 0
        /// Edits found already applied by that settling.
        package var reconciledApplied = 0
        package var batchesSent = 0
        package var requests = 0
        package var retries = 0
        package var backoff: Duration = .zero
        /// Edits settled in this run, by status.
        package var settled: [EditStatus: Int] = [:]
        /// Adds the service already held (an earlier run or attempt applied them).
        package var alreadyPresent = 0
        /// Deletes that found their feature gone (an earlier run or attempt deleted it, or it was never there).
        package var alreadyGone = 0
        package var elapsed: Duration = .zero
        /// Whether the run stopped early (cancelled).
        package var interrupted = false
        /// Why the run stopped early because the service could not be reached for ``BatchApplier/serviceWait``; nil
        /// when it did not. The batches not applied are left for `--resume`.
        package var unavailable: String?
        /// Times the service could not be reached and the run waited for it, and how long in all.
        package var outages = 0
        package var outageTime: Duration = .zero
        /// Events the dispatcher received in a stage that cannot take them, and ignored: a fault of the applier, for
        /// its report to show (a debug build stops on the first).
        package var anomalies: [String] = []

        /// Edits applied in this run per second of it.
        package var editsPerSecond: Double {
            let seconds = elapsed.seconds
            return seconds > 0 ? Double(settled[.applied] ?? 0) / seconds : 0
        }
    }

    /// Settles batches in doubt, then sends every open batch.
    /// - Parameters:
    ///   - plan: Batches as a plan still being made completes them (``ApplyPlanner/plan(_:into:recordProblems:stop:ready:)``),
    ///     sent as they come; the run ends when it finishes. Nil when the journal's plan is complete: its open
    ///     batches are sent. Either way, batches in doubt are settled first.
    ///   - clock: Paces the rate and measures the run.
    ///   - progress: Called after each batch, from the calling task.
    /// - Returns: What the run did; ``Summary/interrupted`` when it was cancelled; ``Summary/unavailable`` when the
    ///   service could not be reached for ``serviceWait``, also while batches in doubt were looked up first.
    /// - Throws: ``ApplyError/journal(_:)``; ``FeatureServiceError`` when settling in-doubt batches fails otherwise.
    package func run(
        plan: AsyncStream<ApplyPlanner.ReadyBatches>? = nil, clock: some Clock<Duration> = ContinuousClock(), progress: (Progress) -> Void = { _ in }
    ) async throws -> Summary {
        try await dispatch(plan: plan, clock: clock, progress: progress)
    }

    /// Carries out what an ``ApplyDispatchMachine`` decides: requests in a task group, journal writes, sleeps on
    /// `clock`, probes; and tells it what came of each. Only this task writes to the journal.
    private func dispatch<C: Clock<Duration>>(
        plan: AsyncStream<ApplyPlanner.ReadyBatches>?, clock: C, progress: (Progress) -> Void
    ) async throws -> Summary {
        let configuration = ApplyDispatchMachine<C.Instant>.Configuration(
            concurrency: settings.concurrency, batchSize: settings.batchSize, rate: settings.rate, serviceWait: serviceWait,
            probeInterval: probeInterval, streamingPlan: plan != nil)
        let inDoubt = try journal.openBatches().filter { $0.state == .sending }.map(\.id)
        var machine = ApplyDispatchMachine(configuration, inDoubt: inDoubt, start: clock.now)
        var incoming = plan?.makeAsyncIterator()
        return try await withThrowingTaskGroup(of: BatchResult.self) { group in
            if Task.isCancelled { machine.cancel() }
            var action = machine.begin(now: clock.now)
            while true {
                let event: ApplyDispatchMachine<C.Instant>.Event
                switch action {
                case .finish(let summary):
                    return summary
                case .send(let batch, let outcomes):
                    try journal.markSending(batch.id, after: outcomes.edits, files: outcomes.files)
                    let send = self.send
                    group.addTask { await send(batch) }
                    event = .sent
                case .awaitAnswer:
                    guard let result = try await group.next() else { preconditionFailure("a batch in flight has no task") }
                    liveMetrics?.record(result)
                    event = .answered(result)
                case .awaitPlan:
                    if let more = await incoming?.next() { event = .planned(more.ids) } else { event = .planEnded }
                case .report(let current):
                    progress(current)
                    event = .reported
                default:
                    event = try await perform(action, clock: clock)
                }
                if Task.isCancelled { machine.cancel() }
                action = machine.handle(event, now: clock.now)
            }
        }
    }

    /// Carries out an action of the machine that needs neither the task group nor the caller's plan or progress.
    private func perform<C: Clock<Duration>>(
        _ action: ApplyDispatchMachine<C.Instant>.Action, clock: C
    ) async throws -> ApplyDispatchMachine<C.Instant>.Event {
        switch action {
        case .lookUp(let id, waitingForService: true):
            do {
                let found = try await Self.waitingForService(serviceWait, probeInterval: probeInterval, clock: clock) { try await reconcile(id) }
                return .lookedUp(found: found)
            } catch ApplyError.unavailable(let reason) {
                return .lookUpUnavailable(reason)
            }
        case .lookUp(let id, waitingForService: false):
            do {
                return .lookedUp(found: try await reconcile(id))
            } catch is CancellationError {
                return .cancelled
            } catch let error as FeatureServiceError where Self.unavailability(error.attemptFailure) != nil {
                // Other errors end the run, as when looking up in-doubt batches at its start.
                return .lookUpUnavailable("\(error.attemptFailure)")
            }
        case .listOpen:
            return .opened(batches: try journal.openBatches().map(\.id), edits: try journal.openEditCount())
        case .read(let ids):
            return .read(try journal.readForSending(ids))
        case .sleep(let due):
            try? await clock.sleep(until: due, tolerance: nil)
            return .woke
        case .record(let outcomes):
            try journal.record(files: outcomes.files)
            try journal.record(outcomes.edits)
            return .recorded
        case .probe(let layer, let at):
            switch await probe(layer: layer, at: at, clock: clock) {
            case true?: return .probeAnswered
            case false?: return .probeFailed
            case nil: return .cancelled
            }
        case .send, .awaitAnswer, .awaitPlan, .report, .finish:
            preconditionFailure("carried out by the run's loop")
        }
    }
}
