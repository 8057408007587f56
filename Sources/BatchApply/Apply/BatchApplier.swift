public import FeatureServiceClient
import FeatureModel
import Foundation

/// Sends a journal's planned batches to the service, `concurrency` requests at a time and at most `rate` edits a
/// second, and records each edit's outcome; on a resumed journal it first settles the batches left in doubt.
///
/// ```
///  journal (planned batches) ──► parent loop ──► child task per batch: applyEdits, retried exactly once
///        ▲                         │  (≤ concurrency in flight, paced by rate)          │
///        └──── outcomes, one transaction per batch ◄───────── BatchResult ◄────────────┘
/// ```
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
public struct BatchApplier: Sendable {
    public let journal: ApplyJournal
    public let service: FeatureService
    public let settings: ApplySettings
    public let retry: RetryPolicy
    /// The GlobalID and object-ID fields of each layer the plan names.
    public let keys: [Int: (objectIdField: String, globalIdField: String?)]
    /// How long a run waits for a service that cannot be reached before it stops; zero fails the batches instead, each
    /// after its retries.
    public var serviceWait: Duration = Self.defaultServiceWait
    /// The default ``serviceWait``: 15 minutes.
    public static let defaultServiceWait = Duration.seconds(900)
    /// The longest pause between two probes of a service that cannot be reached.
    public var probeInterval: Duration = .seconds(30)

    /// The default retry policy of an apply: patient enough for an overnight run against a throttling service.
    public static let defaultRetry = RetryPolicy(
        maximumAttempts: 8, initialBackoff: .milliseconds(200), maximumBackoff: .seconds(30), budget: .seconds(300))

    public init(
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
    public struct Progress: Sendable, Hashable {
        /// Edits with an outcome recorded in this run.
        public var settled: Int
        /// Edits this run set out to settle.
        public var total: Int
        public var applied: Int
        public var rejected: Int
        public var failed: Int
        public var retries: Int
        public var elapsed: Duration
        /// Whether the input is still being planned (the total still grows).
        public var planning = false
        /// How the service could not be reached, while the run waits for it.
        public var unavailable: String?
    }

    /// What a run did.
    public struct Summary: Sendable, Hashable {
        /// Batches found in doubt and settled against the service before sending.
        public var reconciledBatches = 0
        /// Edits found already applied by that settling.
        public var reconciledApplied = 0
        public var batchesSent = 0
        public var requests = 0
        public var retries = 0
        public var backoff: Duration = .zero
        /// Edits settled in this run, by status.
        public var settled: [EditStatus: Int] = [:]
        /// Adds the service already held (an earlier run or attempt applied them).
        public var alreadyPresent = 0
        /// Deletes that found their feature gone (an earlier run or attempt deleted it, or it was never there).
        public var alreadyGone = 0
        public var elapsed: Duration = .zero
        /// Whether the run stopped early (cancelled).
        public var interrupted = false
        /// Why the run stopped early because the service could not be reached for ``BatchApplier/serviceWait``; nil
        /// when it did not. The batches not applied are left for `--resume`.
        public var unavailable: String?
        /// Times the service could not be reached and the run waited for it, and how long in all.
        public var outages = 0
        public var outageTime: Duration = .zero

        /// Edits applied in this run per second of it.
        public var editsPerSecond: Double {
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
    public func run(
        plan: AsyncStream<ApplyPlanner.ReadyBatches>? = nil, clock: some Clock<Duration> = ContinuousClock(), progress: (Progress) -> Void = { _ in }
    ) async throws -> Summary {
        let start = clock.now
        var summary = Summary()
        let batches = try journal.openBatches()
        for batch in batches where batch.state == .sending {
            if Task.isCancelled { break }
            do {
                let found = try await Self.waitingForService(serviceWait, probeInterval: probeInterval, clock: clock) { try await reconcile(batch.id) }
                summary.reconciledBatches += 1
                summary.reconciledApplied += found
            } catch ApplyError.unavailable(let reason) {
                // Nothing was sent: the batches in doubt stay so, for the next resume.
                summary.unavailable = reason
                summary.outages = 1
                summary.outageTime = start.duration(to: clock.now)
                summary.elapsed = start.duration(to: clock.now)
                return summary
            }
        }
        // Batches are read a window at a time, and each is marked as being sent just before its request goes out, in
        // one transaction with the outcomes that came back since the last one (else written at least every 100 ms):
        // so the batches in doubt after a crash are only those whose requests were out. Memory holds a window.
        // A plan still being made gives its batches only once they are complete (a batch the journal holds may still
        // be taking edits), so then they all come from it.
        let open = plan == nil ? try journal.openBatches().map(\.id) : []
        var incoming = plan?.makeAsyncIterator()
        var current = Progress(
            settled: 0, total: plan == nil ? try journal.openEditCount() : 0, applied: 0, rejected: 0, failed: 0, retries: 0, elapsed: .zero,
            planning: plan != nil)
        let concurrency = max(1, settings.concurrency)
        let window = max(concurrency * 2, min(256, 16_384 / max(1, settings.batchSize)))
        var editsStarted = 0
        var unrecorded: [(batch: Int, records: [EditRecord], state: JournalBatch.State)] = []
        var unrecordedFiles: [FileRecord] = []
        var lastRecorded = clock.now
        func recordOutcomes() throws {
            try journal.record(files: unrecordedFiles)
            try journal.record(unrecorded)
            unrecorded.removeAll(keepingCapacity: true)
            unrecordedFiles.removeAll(keepingCapacity: true)
            lastRecorded = clock.now
        }
        try await withThrowingTaskGroup(of: BatchResult.self) { group in
            var queue = open[...]
            var ready: [JournalBatch] = []
            var readyIndex = 0
            var inFlight = 0
            // A barrier batch waiting for the batches before it to finish.
            var held: JournalBatch?
            // The features whose edits in this run did not apply (failed, or of unknown outcome): a later edit of such
            // a feature is not sent, since it would reach the service before the earlier one, which `--resume` sends again.
            var unsettled: Set<FeatureKey> = []
            // The service cannot be reached: since when (from the run's start) and how, and the batches that found it so.
            var outageBegan: Duration?
            var outageReason = ""
            var pausedFor = Duration.zero
            var waiting: [(id: Int, layer: Int, inDoubt: Bool)] = []
            /// The next batch with open edits; nil when there is none (or the run is cancelled).
            func nextOpen() async throws -> JournalBatch? {
                while !Task.isCancelled {
                    if readyIndex == ready.count {
                        while queue.isEmpty, incoming != nil {
                            // What has come back is written before waiting for the plan, which may take a while.
                            if !unrecorded.isEmpty || !unrecordedFiles.isEmpty { try recordOutcomes() }
                            if let more = await incoming?.next() {
                                queue.append(contentsOf: more.ids)
                            } else {
                                incoming = nil
                                current.planning = false
                            }
                        }
                        let ids = Array(queue.prefix(window))
                        guard !ids.isEmpty else { return nil }
                        queue = queue.dropFirst(ids.count)
                        ready = try journal.readForSending(ids)
                        readyIndex = 0
                        // A plan still being made: the edits to settle are counted as their batches are read (those
                        // settled by an earlier run are not open, and not counted).
                        if plan != nil { current.total += ready.reduce(0) { $0 + $1.edits.count } }
                    }
                    let batch = ready[readyIndex]
                    readyIndex += 1
                    // A batch settled already (a plan made again after an interruption gives its batches again) is passed over.
                    if !batch.edits.isEmpty || !batch.attachments.isEmpty { return batch }
                }
                return nil
            }
            /// Starts the next batch; false when there is none, or when it is a barrier and batches are still in flight
            /// (it starts once they have finished).
            func startNext() async throws -> Bool {
                guard !Task.isCancelled, outageBegan == nil else { return false }
                let batch: JournalBatch
                if let waiting = held {
                    guard inFlight == 0 else { return false }
                    batch = waiting
                    held = nil
                } else {
                    guard let next = try await nextOpen() else { return false }
                    if next.barrier && inFlight > 0 {
                        held = next
                        return false
                    }
                    batch = next
                }
                if let rate = settings.rate, rate > 0 {
                    // Open-model pacing: batch k starts when its own last edit is due at `rate` (the time spent waiting
                    // for the service left out), so that no stretch of the run, its first batches included, goes faster.
                    let due = start.advanced(by: pausedFor + .seconds(Double(editsStarted + batch.edits.count) / rate))
                    if clock.now < due { try? await clock.sleep(until: due, tolerance: nil) }
                    if Task.isCancelled {
                        // Not started, nor marked.
                        held = batch
                        return false
                    }
                }
                var toSend = batch
                var withheld: [EditRecord] = []
                if batch.barrier && !unsettled.isEmpty {
                    func waits(_ edit: JournalEdit) -> Bool { FeatureKey(edit.planned).map(unsettled.contains) ?? false }
                    toSend.edits = batch.edits.filter { !waits($0) }
                    withheld = batch.edits.filter(waits).map { edit in
                        EditRecord(
                            index: edit.planned.position.index, status: .failed,
                            reason: "not sent: an earlier edit of this feature did not apply, and this one must come after it; --resume sends both in order")
                    }
                }
                editsStarted += toSend.edits.count
                // In doubt from now until its outcome is written: its request goes out next.
                try journal.markSending(toSend.id, after: unrecorded, files: unrecordedFiles)
                unrecorded.removeAll(keepingCapacity: true)
                unrecordedFiles.removeAll(keepingCapacity: true)
                lastRecorded = clock.now
                let send = self.send
                group.addTask {
                    var result = await send(toSend)
                    result.sentEdits = toSend.edits.count
                    let notApplied = Set(result.records.lazy.filter { $0.status == .failed || $0.status == .unknown }.map(\.index))
                    if !notApplied.isEmpty {
                        result.unsettled = toSend.edits.filter { notApplied.contains($0.planned.position.index) }.compactMap { FeatureKey($0.planned) }
                    }
                    result.records += withheld
                    return result
                }
                inFlight += 1
                return true
            }
            sending: while true {
                while inFlight < concurrency, try await startNext() {}
                while inFlight > 0, let result = try await group.next() {
                    inFlight -= 1
                    summary.requests += result.requests
                    summary.retries += result.retries
                    summary.backoff += result.backoff
                    summary.alreadyPresent += result.alreadyPresent
                    summary.alreadyGone += result.alreadyGone
                    if result.cancelled {
                        summary.interrupted = true
                        continue
                    }
                    if let unavailable = result.unavailable {
                        // Nothing of its edits is written: it goes again once the service answers. No batch starts
                        // meanwhile. When no attempt of it can have reached the service, it is not in doubt.
                        waiting.append((result.id, result.layer, inDoubt: result.state == .sending))
                        if result.state != .sending { unrecorded.append((result.id, [], .planned)) }
                        editsStarted -= result.sentEdits
                        outageReason = unavailable
                        if outageBegan == nil {
                            // Said once, not for each batch in flight that finds the service gone.
                            outageBegan = start.duration(to: clock.now)
                            summary.outages += 1
                            current.unavailable = unavailable
                            current.elapsed = start.duration(to: clock.now)
                            progress(current)
                        }
                        continue
                    }
                    unsettled.formUnion(result.unsettled)
                    unrecorded.append((result.id, result.records, result.state))
                    unrecordedFiles += result.files
                    if unrecorded.count >= window || lastRecorded.duration(to: clock.now) >= .milliseconds(100) { try recordOutcomes() }
                    summary.batchesSent += 1
                    for record in result.records {
                        summary.settled[record.status, default: 0] += 1
                        current.settled += 1
                        switch record.status {
                        case .applied: current.applied += 1
                        case .rejected: current.rejected += 1
                        case .failed, .unknown: current.failed += 1
                        case .pending: break
                        }
                    }
                    current.retries = summary.retries
                    current.elapsed = start.duration(to: clock.now)
                    progress(current)
                    while inFlight < concurrency, try await startNext() {}
                }
                // Every batch in flight has come back. When the service could not be reached, wait for it, then send the
                // batches it stopped before the rest (those that may have reached it are looked up by GlobalID first).
                guard let began = outageBegan, !Task.isCancelled, !summary.interrupted, let probe = waiting.first?.layer else { break sending }
                // What has come back is written first: the wait may be long.
                if !unrecorded.isEmpty || !unrecordedFiles.isEmpty { try recordOutcomes() }
                let answered = await awaitService(layer: probe, clock: clock, until: start.advanced(by: began + serviceWait))
                guard answered else {
                    summary.outageTime += start.duration(to: clock.now) - began
                    if !Task.isCancelled {
                        summary.unavailable = "the service could not be reached for \(Self.spoken(start.duration(to: clock.now) - began)) (\(outageReason))"
                    }
                    break sending
                }
                do {
                    for index in waiting.indices where waiting[index].inDoubt {
                        let found = try await reconcile(waiting[index].id)
                        waiting[index].inDoubt = false
                        summary.reconciledBatches += 1
                        summary.reconciledApplied += found
                        summary.settled[.applied, default: 0] += found
                        current.settled += found
                        current.applied += found
                    }
                } catch is CancellationError {
                    summary.outageTime += start.duration(to: clock.now) - began
                    break sending
                } catch let error as FeatureServiceError where Self.unavailability(error.attemptFailure) != nil {
                    // Out of reach again while they were looked up: wait on, to the same deadline. (Other errors end the
                    // run, as when looking up in-doubt batches at its start.)
                    outageReason = "\(error.attemptFailure)"
                    continue sending
                }
                summary.outageTime += start.duration(to: clock.now) - began
                pausedFor += start.duration(to: clock.now) - began
                var again = try journal.readForSending(waiting.map(\.id)).filter { !$0.edits.isEmpty || !$0.attachments.isEmpty }
                if let waitingBarrier = held {
                    again.append(waitingBarrier)
                    held = nil
                }
                ready.insert(contentsOf: again, at: min(readyIndex, ready.count))
                waiting = []
                outageBegan = nil
                current.unavailable = nil
            }
            // Stopped early (cancelled, as by Ctrl-C, or the service out of reach for too long): batches read but never
            // started were never marked; those the service could not be reached for went back to planned when they
            // came back (unless one of their attempts may have reached it: those stay in doubt, looked up on resume).
        }
        // Also after Ctrl-C: what finished is written; batches marked and never answered stay in doubt.
        try recordOutcomes()
        if Task.isCancelled { summary.interrupted = true }
        summary.elapsed = start.duration(to: clock.now)
        return summary
    }
}
