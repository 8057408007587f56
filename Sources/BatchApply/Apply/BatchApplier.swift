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
/// Batches are marked `sending` a window at a time before their requests go out, and outcomes are written a group at a
/// time; a crash in between leaves more batches in doubt, never a wrong record.
///
/// Batches start in plan order. A barrier batch (it edits a feature an earlier batch edits) waits until no batch is
/// in flight, so the earlier edit has its outcome first.
///
/// A service that cannot be reached (no connection, timeouts, HTTP 502, 503 or 504 once a batch's retries gave up)
/// pauses the run rather than failing batch after batch: no new batch starts, the batches it stopped go back to be
/// sent again (those that may have reached the service are looked up by GlobalID first), and the service is probed
/// with a growing pause until it answers, when the run goes on. After ``serviceWait`` of that the run stops, every
/// batch not applied left for `--resume` (``Summary/unavailable``).
///
/// Cancelling the task (Ctrl-C) stops new batches; batches in flight are cancelled and stay in doubt, to be settled
/// by `--resume`, while batches marked with their window but not started go back to planned. Only the parent writes
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

    /// What one child did with one batch.
    struct BatchResult: Sendable {
        var id: Int
        /// The layer it went to (an atomic batch's first).
        var layer = 0
        /// How many edits of it were sent (for pacing).
        var sentEdits = 0
        var records: [EditRecord]
        var state: JournalBatch.State
        var requests: Int
        var retries: Int
        var backoff: Duration
        var alreadyPresent: Int
        var cancelled: Bool
        var alreadyGone = 0
        /// What became of the files of an atomic batch.
        var files: [FileRecord] = []
        /// The features of the edits sent that did not apply (failed, or of unknown outcome).
        var unsettled: [FeatureKey] = []
        /// How the service could not be reached when the batch gave up for that: it goes back to be sent again, its
        /// records unwritten (``state`` says whether an attempt may have reached the service).
        var unavailable: String?
    }

    /// How a batch's last attempt failed, when the run is to wait for the service and the failure says it cannot be
    /// reached; nil otherwise (the batch's edits then fail as they are).
    func outage(after failure: AttemptFailure?) -> String? {
        guard serviceWait > .zero, let failure else { return nil }
        return Self.unavailability(failure)
    }

    /// How the last attempt failed, when that says the service cannot be reached now (rather than that it refused the
    /// request): no connection, a timeout or broken exchange, HTTP (or ArcGIS error code) 502, 503 or 504.
    static func unavailability(_ failure: AttemptFailure) -> String? {
        let gateway: Set<Int> = [502, 503, 504]
        switch failure {
        case .transport(let kind, _):
            let unreachable: [TransportError.Kind] = [.couldNotResolveHost, .couldNotConnect, .timedOut, .sendFailed, .receiveFailed, .emptyReply]
            return unreachable.contains(kind) ? "\(failure)" : nil
        case .httpStatus(let status): return gateway.contains(status) ? "\(failure)" : nil
        case .arcgis(let code, let status): return gateway.contains(code) || gateway.contains(status) ? "\(failure)" : nil
        case .undecodable, .invalidRequest: return nil
        }
    }

    /// Settles batches in doubt, then sends every open batch.
    /// - Parameters:
    ///   - plan: Batches as a plan still being made completes them (``ApplyPlanner/plan(_:into:recordProblems:stop:ready:)``),
    ///     sent as they come; the run ends when it finishes. Nil when the journal's plan is complete: its open
    ///     batches are sent. Either way, batches in doubt are settled first.
    ///   - clock: Paces the rate and measures the run.
    ///   - progress: Called after each batch, from the calling task.
    /// - Returns: What the run did; ``Summary/interrupted`` when it was cancelled.
    /// - Throws: ``ApplyError/journal(_:)``; ``FeatureServiceError`` when settling in-doubt batches fails.
    public func run(
        plan: AsyncStream<ApplyPlanner.ReadyBatches>? = nil, clock: some Clock<Duration> = ContinuousClock(), progress: (Progress) -> Void = { _ in }
    ) async throws -> Summary {
        let start = clock.now
        var summary = Summary()
        let batches = try journal.openBatches()
        for batch in batches where batch.state == .sending {
            if Task.isCancelled { break }
            let found = try await reconcile(batch.id)
            summary.reconciledBatches += 1
            summary.reconciledApplied += found
        }
        // Batches are marked and read a window at a time, and outcomes written a group at a time (at least every
        // 100 ms): a transaction per batch cost more than the batch itself at batch size 1. Memory holds a window.
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
            /// The next batch with open edits, marked as being sent; nil when there is none (or the run is cancelled).
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
                        ready = try journal.startSending(ids)
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
                        // Not started: it goes back to planned with the rest of the window.
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
                        // Nothing of it is written: it goes again once the service answers. No batch starts meanwhile.
                        waiting.append((result.id, result.layer, inDoubt: result.state == .sending))
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
                var again = try journal.startSending(waiting.map(\.id)).filter { !$0.edits.isEmpty || !$0.attachments.isEmpty }
                if let waitingBarrier = held {
                    again.append(waitingBarrier)
                    held = nil
                }
                ready.insert(contentsOf: again, at: min(readyIndex, ready.count))
                waiting = []
                outageBegan = nil
                current.unavailable = nil
            }
            // Stopped early (cancelled, as by Ctrl-C, or the service out of reach for too long): batches marked with
            // their window but never started did not go out, nor did those the service could not be reached for
            // (unless one of their attempts may have reached it: those stay in doubt, to be looked up on resume).
            let unsent = ready[min(readyIndex, ready.count)...].map(\.id) + (held.map { [$0.id] } ?? []) + waiting.filter { !$0.inDoubt }.map(\.id)
            if Task.isCancelled || summary.interrupted || summary.unavailable != nil { try journal.unmarkUnsent(unsent) }
        }
        // Also after Ctrl-C: what finished is written; batches marked and never answered stay in doubt.
        try recordOutcomes()
        if Task.isCancelled { summary.interrupted = true }
        summary.elapsed = start.duration(to: clock.now)
        return summary
    }

    /// Looks the adds of in-doubt batch `id` up by GlobalID, records those found as applied, and leaves the rest
    /// (and the batch's updates and deletes) to be sent. Returns how many were found.
    func reconcile(_ id: Int) async throws -> Int {
        let batch = try journal.batch(id)
        let adds = batch.edits.filter { $0.planned.kind == .add }
        // An atomic batch holds adds of several layers; each is looked up in its own.
        var found: [Int: [String: [Int64]]] = [:]
        for layer in Set(adds.map(\.planned.layer)).sorted() {
            guard let globalIdField = keys[layer]?.globalIdField else { continue }
            found[layer] = try await service.layer(id: layer).objectIds(
                forGlobalIds: adds.filter { $0.planned.layer == layer }.compactMap(\.planned.globalId), globalIdField: globalIdField,
                objectIdField: keys[layer]?.objectIdField ?? "OBJECTID")
        }
        let records = adds.compactMap { edit -> EditRecord? in
            guard let globalId = edit.planned.globalId, let objectId = found[edit.planned.layer]?[globalId]?.first else { return nil }
            return EditRecord(index: edit.planned.position.index, status: .applied, objectId: objectId, reason: "applied before the interruption")
        }
        // Files of the features found: attached by the same request, or to be attached now.
        if batch.atomic, !records.isEmpty {
            let foundPositions = Set(records.map(\.index))
            let files = batch.attachments.filter { foundPositions.contains($0.position) }.map(\.add)
            var parents: [Int: [String: Int64]] = [:]
            for (layer, ids) in found { parents[layer] = ids.compactMapValues(\.first) }
            var scratch = BatchResult(id: id, records: [], state: .done, requests: 0, retries: 0, backoff: .zero, alreadyPresent: 0, cancelled: false)
            try journal.record(files: try await settleFiles(files, parents: parents, into: &scratch))
        }
        // Nothing of the batch is in doubt any more: what was found is recorded, the rest is sent again.
        try journal.record(batch: id, records, state: records.count == batch.edits.count ? .done : .planned)
        return records.count
    }

    /// Sends one batch through the retried applyEdits and says what became of each edit. Never throws.
    @Sendable func send(_ batch: JournalBatch) async -> BatchResult {
        if batch.atomic { return await sendAtomic(batch) }
        var result = BatchResult(id: batch.id, records: [], state: .done, requests: 0, retries: 0, backoff: .zero, alreadyPresent: 0, cancelled: false)
        result.layer = batch.layer
        let globalIdField = keys[batch.layer]?.globalIdField ?? "GlobalID"
        var edits = LayerEdits()
        // Positions in `batch.edits` (rather than filtered copies of the edits, up to `batchSize` of them), in the
        // order of the request's results: adds sent as features (none, when every add has its GlobalID), then the
        // encoded ones; updates; deletes. `sent` is every edit that goes, in the batch's order.
        var plainAdds: [Int] = []
        var encodedAdds: [Int] = []
        var updates: [Int] = []
        var deletes: [Int] = []
        var sent: [Int] = []
        sent.reserveCapacity(batch.edits.count)
        // Adds go as the journal holds them, with their GlobalIDs beside: no parsing and writing them again.
        var addPayloads: [String] = []
        var addIds: [String] = []
        for index in batch.edits.indices {
            let planned = batch.edits[index].planned
            switch planned.kind {
            case .add where planned.globalId != nil:
                addPayloads.append(planned.payload)
                addIds.append(planned.globalId ?? "")
                encodedAdds.append(index)
            case .add, .update:
                // The byte-level reader: JSONDecoder took a third of a run's CPU on these payloads.
                guard let value = try? JSONReader.parse(planned.payload), let feature = try? EsriJSONFeature.feature(value) else {
                    result.records.append(EditRecord(index: planned.position.index, status: .rejected, reason: "the journal's copy of the edit is unreadable"))
                    continue
                }
                if planned.kind == .add {
                    edits.adds.append(feature)
                    plainAdds.append(index)
                } else {
                    edits.updates.append(feature)
                    updates.append(index)
                }
            case .delete:
                if let objectId = planned.objectId { edits.deletes.append(objectId) } else if let globalId = planned.globalId { edits.deleteGlobalIds.append(globalId) }
                deletes.append(index)
            }
            sent.append(index)
        }
        if !addPayloads.isEmpty {
            // Encoded for the request body as they are joined: the array is not copied into a String first.
            var array: [UInt8] = []
            array.reserveCapacity(addPayloads.reduce(6) { $0 + $1.utf8.count * 3 + 3 })
            array.append(contentsOf: "%5B".utf8)
            for (offset, payload) in addPayloads.enumerated() {
                if offset > 0 { array.append(contentsOf: "%2C".utf8) }
                FormEncoding.appendEncodedValue(payload, to: &array)
            }
            array.append(contentsOf: "%5D".utf8)
            edits.encodedAdds = EncodedFeatures(formEncoded: array, count: addPayloads.count, globalIds: addIds)
        }
        guard edits.count > 0 else { return result }
        let adds = plainAdds + encodedAdds
        let options = ApplyEditsOptions(rollbackOnFailure: settings.rollbackOnFailure, useGlobalIds: batch.useGlobalIds)
        do {
            let outcome = try await service.layer(id: batch.layer).applyEdits(edits, options: options, retry: retry, globalIdField: globalIdField)
            result.count(outcome.attempts)
            var inDoubt = false
            for (positions, outcomes) in [(adds, outcome.adds), (updates, outcome.updates), (deletes, outcome.deletes)] {
                // An answer with fewer results than edits leaves the rest unknown, to be looked up on resume.
                for index in positions.dropFirst(outcomes.count) {
                    inDoubt = true
                    result.records.append(
                        EditRecord(index: batch.edits[index].planned.position.index, status: .unknown, reason: "the service answered without a result for this edit"))
                }
                for (index, outcome) in zip(positions, outcomes) {
                    let record = Self.record(batch.edits[index].planned, outcome)
                    if record.status == .unknown { inDoubt = true }
                    if outcome.status == .appliedByEarlierAttempt {
                        switch batch.edits[index].planned.kind {
                        case .add: result.alreadyPresent += 1
                        case .delete: result.alreadyGone += 1
                        case .update: break
                        }
                    }
                    result.records.append(record)
                }
            }
            result.state = inDoubt ? .sending : .done
        } catch is CancellationError {
            result.cancelled = true
        } catch let error as FeatureServiceError {
            result.count(error.attempts)
            if let arcgis = error.arcgisError, settings.rollbackOnFailure, !error.mayHaveBeenApplied, arcgis.code == 400 {
                // The service rolled the whole batch back because of one of its edits.
                for index in sent {
                    result.records.append(
                        EditRecord(
                            index: batch.edits[index].planned.position.index, status: .rejected, code: arcgis.code,
                            reason: "the batch was rolled back (--rollback-on-failure): \(arcgis.message)\(arcgis.details.isEmpty ? "" : ": " + arcgis.details.joined(separator: "; "))"))
                }
            } else {
                let reason = error.stopReason.map { "\(error.attemptFailure) (\($0))" } ?? "\(error.attemptFailure)"
                result.unavailable = outage(after: error.attemptFailure)
                for index in sent {
                    result.records.append(
                        EditRecord(index: batch.edits[index].planned.position.index, status: .failed, code: error.arcgisError?.code, reason: "failed after retries: \(reason)"))
                }
                // An attempt may have reached the service: keep the batch in doubt, to look it up before resending.
                result.state = error.mayHaveBeenApplied ? .sending : .done
            }
        } catch {
            if Task.isCancelled {
                result.cancelled = true
            } else {
                for index in sent {
                    result.records.append(EditRecord(index: batch.edits[index].planned.position.index, status: .failed, reason: "\(error)"))
                }
                result.state = .sending
            }
        }
        return result
    }

    /// Probes the service (a count of `layer`, one attempt each) until it answers, pausing 1 s, then twice as long each
    /// time up to ``probeInterval``, and never past `deadline`. Says whether it answered; any answer will do, even a
    /// refusal, since the batches' own requests then say what is wrong.
    func awaitService<C: Clock<Duration>>(layer: Int, clock: C, until deadline: C.Instant) async -> Bool {
        var pause = min(Duration.seconds(1), probeInterval)
        while !Task.isCancelled {
            let now = clock.now
            guard now < deadline else { return false }
            let wake = now.advanced(by: pause) < deadline ? now.advanced(by: pause) : deadline
            do {
                try await clock.sleep(until: wake, tolerance: nil)
            } catch {
                return false
            }
            do {
                _ = try await service.layer(id: layer).count()
                return true
            } catch let error as FeatureServiceError {
                if Self.unavailability(error.attemptFailure) == nil { return true }
            } catch is CancellationError {
                return false
            } catch {
                // Not an answer: probe again.
            }
            pause = min(pause * 2, probeInterval)
        }
        return false
    }

    /// `duration` as people say it: `45 s`, `3 min 20 s`, `2 h 5 min`.
    public static func spoken(_ duration: Duration) -> String {
        let seconds = Int(duration.seconds.rounded())
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds / 60) min \(seconds % 60) s" }
        let minutes = seconds / 60
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }

    /// The journal record of `edit`'s outcome.
    static func record(_ edit: PlannedEdit, _ outcome: EditOutcome) -> EditRecord {
        let index = edit.position.index
        switch outcome.status {
        case .applied:
            return EditRecord(index: index, status: .applied, objectId: outcome.result?.objectId ?? edit.objectId)
        case .appliedByEarlierAttempt:
            let reason =
                switch edit.kind {
                case .add: "already in the service (its GlobalID was there)"
                case .delete: "already gone (deleted by an earlier attempt or run, or never there)"
                case .update: "applied by an earlier attempt"
                }
            return EditRecord(index: index, status: .applied, objectId: outcome.result?.objectId ?? edit.objectId, reason: reason)
        case .failed:
            let error = outcome.result?.error
            return EditRecord(index: index, status: .rejected, code: error?.code, reason: error?.description ?? "rejected by the service")
        case .outcomeUnknown:
            return EditRecord(index: index, status: .unknown, reason: outcome.reason ?? "outcome unknown")
        }
    }
}
