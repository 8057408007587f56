import FeatureModel
import FeatureServiceClient

/// Riding out a service that cannot be reached: probing it, looking up what may have reached it, sending again.
extension ApplyDispatchMachine {
    /// Every batch in flight has come back. When the service could not be reached, wait for it (what came back is
    /// written first: the wait may be long), then send the batches it stopped before the rest; else the run is over.
    mutating func endOfRound(_ now: Instant) -> Action {
        guard let outage, !cancelled, !summary.interrupted, !outage.stopped.isEmpty else { return finish() }
        stage = .pausing(until: start.advanced(by: outage.began + configuration.serviceWait))
        if !unrecorded.isEmpty { return .record(takeOutcomes()) }
        return startProbing(now: now)
    }

    /// Begins probing the service, from `now` to the end of the wait.
    mutating func startProbing(now: Instant) -> Action {
        guard case .pausing(let deadline) = stage else { return nextProbe(now: now) }
        stage = .probing(OutageProbes(from: now, until: deadline, probeInterval: configuration.probeInterval))
        return nextProbe(now: now)
    }

    /// The next probe of the service; once the wait is over (or the run cancelled), the end of the run.
    mutating func nextProbe(now: Instant) -> Action {
        guard case .probing(var probes) = stage, !cancelled, let at = probes.next(now: now), let layer = outage?.stopped.first?.layer else {
            return gaveUp(now: now)
        }
        stage = .probing(probes)
        return .probe(layer: layer, at: at)
    }

    /// The service did not answer within the wait (or the run was cancelled while waiting): the run stops, every batch
    /// not applied left for `--resume`.
    mutating func gaveUp(now: Instant) -> Action {
        let waited = start.duration(to: now) - (outage?.began ?? .zero)
        summary.outageTime += waited
        if !cancelled {
            summary.unavailable = "the service could not be reached for \(BatchApplier.spoken(waited)) (\(outage?.reason ?? "no reason given"))"
        }
        return finish()
    }

    /// Looks up the next stopped batch that may have reached the service; once none is left, reads them all to be sent
    /// again.
    mutating func lookUpNext(now: Instant) -> Action {
        let stopped = outage?.stopped ?? []
        if let batch = stopped.first(where: \.inDoubt) { return .lookUp(batch: batch.id, waitingForService: false) }
        let waited = start.duration(to: now) - (outage?.began ?? .zero)
        summary.outageTime += waited
        pausedFor += waited
        stage = .rereading
        return .read(stopped.map(\.id))
    }

    /// The stopped batch looked up last is settled: `found` of its adds were applied.
    mutating func lookedUp(found: Int) {
        if let index = outage?.stopped.firstIndex(where: \.inDoubt) { outage?.stopped[index].inDoubt = false }
        summary.reconciledBatches += 1
        summary.reconciledApplied += found
        summary.settled[.applied, default: 0] += found
        progress.settled += found
        progress.applied += found
    }

    /// The service answers again: the stopped batches (as the journal now holds them) and a barrier batch held go first.
    mutating func resume(with batches: [JournalBatch]) {
        var again = batches.filter { !$0.edits.isEmpty || !$0.attachments.isEmpty }
        if let waitingBarrier = held {
            again.append(waitingBarrier)
            held = nil
        }
        ready.insert(contentsOf: again, at: min(readyIndex, ready.count))
        outage = nil
        progress.unavailable = nil
        stage = .sending
        filling = true
    }
}

/// When to probe a service that cannot be reached: 1 s after the wait began, then each pause twice the last up to the
/// probe interval, the last cut short where the wait ends (``BatchApplier/outagePacing(wait:probeInterval:)``).
struct OutageProbes<Instant: InstantProtocol<Duration>>: Sendable {
    let start: Instant
    let pacing: RetryPolicy
    /// Probes made so far.
    private(set) var probes = 0

    /// A wait from `start` until `deadline`, probing at least every `probeInterval`.
    init(from start: Instant, until deadline: Instant, probeInterval: Duration) {
        self.start = start
        pacing = BatchApplier.outagePacing(wait: start.duration(to: deadline), probeInterval: probeInterval)
    }

    /// When to make the next probe, at `now`; nil once the wait is over.
    mutating func next(now: Instant) -> Instant? {
        guard let delay = BatchApplier.pause(pacing, beforeRetry: probes + 1, elapsed: start.duration(to: now)) else { return nil }
        probes += 1
        return now.advanced(by: delay)
    }
}
