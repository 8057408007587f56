import FeatureModel
import FeatureServiceClient

/// Which batch starts next, and what a batch's answer means.
extension ApplyDispatchMachine {
    /// The next batch with open edits, or the action that gets it.
    enum NextOpen {
        case batch(JournalBatch)
        case need(Action)
        case none
    }

    /// Starts batches while it can; then waits for one in flight; then, with none in flight, waits for the service
    /// or ends the run.
    mutating func sending(_ now: Instant) -> Action {
        if filling, let action = startNext(now) { return action }
        if !inFlight.isEmpty { return .awaitAnswer }
        return endOfRound(now)
    }

    /// The action that starts (or brings closer) the next batch; nil, and no more filling until a batch comes back,
    /// when there is none, or it is a barrier and batches are still in flight, or no batch may start.
    mutating func startNext(_ now: Instant) -> Action? {
        if let batch = paced {
            // Its time has come: it starts, unless the run was cancelled meanwhile (then it is neither started nor marked).
            paced = nil
            if cancelled {
                held = batch
                filling = false
                return nil
            }
            return launch(batch)
        }
        guard inFlight.count < configuration.concurrency, !cancelled, outage == nil else {
            filling = false
            return nil
        }
        let batch: JournalBatch
        if let waiting = held {
            guard inFlight.isEmpty else {
                filling = false
                return nil
            }
            batch = waiting
            held = nil
        } else {
            switch nextOpen() {
            case .need(let action): return action
            case .none:
                filling = false
                return nil
            case .batch(let next):
                if next.barrier && !inFlight.isEmpty {
                    held = next
                    filling = false
                    return nil
                }
                batch = next
            }
        }
        if let rate = configuration.rate, rate > 0 {
            // Open-model pacing: batch k starts when its own last edit is due at `rate` (the time spent waiting for the
            // service left out), so that no stretch of the run, its first batches included, goes faster.
            let due = start.advanced(by: pausedFor + .seconds(Double(editsStarted + batch.edits.count) / rate))
            if now < due {
                paced = batch
                return .sleep(until: due)
            }
        }
        return launch(batch)
    }

    /// The next batch with open edits, or the action that reads it: the next window of batches, or the plan's next
    /// batches (what came back is written before waiting for the plan, which may take a while).
    mutating func nextOpen() -> NextOpen {
        while !cancelled {
            if readyIndex == ready.count {
                if queue.isEmpty && planOpen {
                    return unrecorded.isEmpty ? .need(.awaitPlan) : .need(.record(takeOutcomes()))
                }
                let ids = Array(queue.prefix(window))
                guard !ids.isEmpty else { return .none }
                queue = queue.dropFirst(ids.count)
                return .need(.read(ids))
            }
            let batch = ready[readyIndex]
            readyIndex += 1
            // A batch settled already (a plan made again after an interruption gives its batches again) is passed over.
            if !batch.edits.isEmpty || !batch.attachments.isEmpty { return .batch(batch) }
        }
        return .none
    }

    /// Sends `batch`: marked `sending` with the outcomes that came back since the last mark. A barrier batch holds back
    /// its edits of features whose earlier edits did not apply in this run, each recorded as failed.
    mutating func launch(_ batch: JournalBatch) -> Action {
        var toSend = batch
        var withheld: [EditRecord] = []
        if batch.barrier && !unsettled.isEmpty {
            let unsettled = self.unsettled
            func waits(_ edit: JournalEdit) -> Bool { FeatureKey(edit.planned).map(unsettled.contains) ?? false }
            toSend.edits = batch.edits.filter { !waits($0) }
            withheld = batch.edits.filter(waits).map { edit in
                EditRecord(
                    index: edit.planned.position.index, status: .failed,
                    reason: "not sent: an earlier edit of this feature did not apply, and this one must come after it; --resume sends both in order")
            }
        }
        editsStarted += toSend.edits.count
        inFlight[toSend.id] = InFlight(sent: toSend, withheld: withheld)
        // In doubt from now until its outcome is written: its request goes out next.
        return .send(toSend, after: takeOutcomes())
    }

    /// Folds a batch that came back into the run: its outcomes to write and count, or, when the service could not be
    /// reached, the batch back to be sent again and the outage begun.
    mutating func fold(_ result: BatchApplier.BatchResult, now: Instant) {
        let flight = inFlight.removeValue(forKey: result.id)
        summary.requests += result.requests
        summary.retries += result.retries
        summary.backoff += result.backoff
        summary.alreadyPresent += result.alreadyPresent
        summary.alreadyGone += result.alreadyGone
        filling = false
        if result.cancelled {
            summary.interrupted = true
            return
        }
        if let unavailable = result.unavailable {
            stoppedByOutage(result, reason: unavailable, sentEdits: flight?.sent.edits.count ?? 0, now: now)
            return
        }
        var records = result.records
        if let flight {
            let notApplied = Set(records.lazy.filter { $0.status == .failed || $0.status == .unknown }.map(\.index))
            if !notApplied.isEmpty {
                unsettled.formUnion(flight.sent.edits.filter { notApplied.contains($0.planned.position.index) }.compactMap { FeatureKey($0.planned) })
            }
            records += flight.withheld
        }
        unrecorded.edits.append((result.id, records, result.state))
        unrecorded.files += result.files
        if unrecorded.edits.count >= window || lastRecorded.duration(to: now) >= .milliseconds(100) { recordDue = true }
        summary.batchesSent += 1
        for record in records {
            summary.settled[record.status, default: 0] += 1
            progress.settled += 1
            switch record.status {
            case .applied: progress.applied += 1
            case .rejected: progress.rejected += 1
            case .failed, .unknown: progress.failed += 1
            case .pending: break
            }
        }
        progress.retries = summary.retries
        progress.elapsed = start.duration(to: now)
        pendingReport = progress
        filling = true
    }

    /// A batch that found the service out of reach: nothing of its edits is written, it goes again once the service
    /// answers, and no batch starts meanwhile. When no attempt of it can have reached the service, it is not in doubt.
    mutating func stoppedByOutage(_ result: BatchApplier.BatchResult, reason: String, sentEdits: Int, now: Instant) {
        if result.state != .sending { unrecorded.edits.append((result.id, [], .planned)) }
        editsStarted -= sentEdits
        if outage == nil {
            // Said once, not for each batch in flight that finds the service gone.
            outage = Outage(began: start.duration(to: now), reason: reason)
            summary.outages += 1
            progress.unavailable = reason
            progress.elapsed = start.duration(to: now)
            pendingReport = progress
        }
        outage?.reason = reason
        outage?.stopped.append(Stopped(id: result.id, layer: result.layer, inDoubt: result.state == .sending))
    }
}
