import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Testing

@testable import BatchApply

/// The applier's dispatch decisions, driven by scripted events on manual instants: no service, no journal, no task.
/// Each test walks one path a run takes — pacing, barriers, outages, cancellation, a resume — action by action.
@Suite struct ApplyDispatchMachineTests {
    typealias Machine = ApplyDispatchMachine<ManualClock.Instant>

    @Test("a plain run: batches read a window at a time, at most --concurrency in flight, each marked with the outcomes since the last mark")
    func plainRun() throws {
        let (b1, b2, b3) = (Self.batch(1), Self.batch(2), Self.batch(3))
        var run = Script(Self.configuration(concurrency: 2))
        #expect(run.action.text == "listOpen")
        run.expect(.opened(batches: [1, 2, 3], edits: 6), gives: "read 1,2,3")
        run.expect(.read([b1, b2, b3]), gives: "send 1")
        run.expect(.sent, gives: "send 2")
        // Two in flight: the third waits for one to come back.
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.answered(b1), after: .milliseconds(10), gives: "report 2/6")
        // Batch 1's outcomes go with batch 3's mark, in one transaction.
        run.expect(.reported, gives: "send 3 after 1")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.answered(b2), after: .milliseconds(10), gives: "report 4/6")
        run.expect(.reported, gives: "awaitAnswer")
        run.expect(Self.answered(b3), after: .milliseconds(10), gives: "report 6/6")
        // Nothing more to send: what came back is written, and the run is over.
        run.expect(.reported, gives: "record 2,3")
        run.expect(.recorded, gives: "finish")
        let summary = try #require(run.summary)
        #expect(summary.batchesSent == 3 && summary.requests == 3 && summary.settled == [.applied: 6])
        #expect(summary.elapsed == .milliseconds(30) && !summary.interrupted && summary.unavailable == nil && summary.outages == 0)
    }

    @Test("outcomes that came back are written at least every 100 ms, before the progress is shown, even with no batch to mark")
    func recordsEvery100Milliseconds() {
        let (b1, b2, b3) = (Self.batch(1), Self.batch(2), Self.batch(3))
        var run = Script(Self.configuration(concurrency: 2))
        run.expect(.opened(batches: [1, 2, 3], edits: 6), gives: "read 1,2,3")
        run.expect(.read([b1, b2, b3]), gives: "send 1")
        run.expect(.sent, gives: "send 2")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.answered(b1), after: .milliseconds(150), gives: "record 1")
        run.expect(.recorded, gives: "report 2/6")
        run.expect(.reported, gives: "send 3")
    }

    @Test("a window of batches is read at a time; a batch with nothing open (settled by an earlier run) is passed over")
    func windowsAndSettledBatches() {
        var empty = Self.batch(2)
        empty.edits = []
        // Concurrency 200 with batches of 2 edits: a window is 400 batches.
        var run = Script(Self.configuration(concurrency: 200))
        run.expect(.opened(batches: Array(1...401), edits: 802), gives: "read 1…400")
        run.expect(.read([Self.batch(1), empty, Self.batch(3)]), gives: "send 1")
        run.expect(.sent, gives: "send 3")
        run.expect(.sent, gives: "read 401")
    }

    @Test("the rate paces each batch to when its last edit is due; a batch already late starts at once")
    func ratePacing() {
        let (b1, b2, b3) = (Self.batch(1), Self.batch(2), Self.batch(3))
        var run = Script(Self.configuration(concurrency: 4, rate: 10))
        run.expect(.opened(batches: [1, 2, 3], edits: 6), gives: "read 1,2,3")
        run.expect(.read([b1, b2, b3]), gives: "sleep until 200ms")
        run.expect(.woke, after: .milliseconds(200), gives: "send 1")
        run.expect(.sent, gives: "sleep until 400ms")
        run.expect(.woke, after: .milliseconds(250), gives: "send 2")
        // Edits 5 and 6 are due at 600 ms, and it is 450 ms.
        run.expect(.sent, gives: "sleep until 600ms")
        run.expect(.woke, after: .milliseconds(200), gives: "send 3")
        run.expect(.sent, gives: "awaitAnswer")
    }

    @Test("a barrier batch waits until nothing is in flight, and the batches after it wait with it (plan order)")
    func barrier() throws {
        let b1 = Self.batch(1, keys: ["{A}", "{B}"])
        let b2 = Self.batch(2, keys: ["{A}", "{D}"], barrier: true)
        let b3 = Self.batch(3)
        var run = Script(Self.configuration(concurrency: 4))
        run.expect(.opened(batches: [1, 2, 3], edits: 6), gives: "read 1,2,3")
        run.expect(.read([b1, b2, b3]), gives: "send 1")
        run.expect(.sent, gives: "awaitAnswer")
        // Edit {A} of batch 1 fails: batch 2's edit of {A} must not overtake it, so it is held back, recorded as failed.
        run.expect(Self.answered(b1, failing: [0]), gives: "report 2/6")
        run.expect(.reported, gives: "send 2 after 1")
        let sent = try #require(run.sent)
        #expect(sent.edits.map(\.planned.globalId) == ["{D}"])
        run.expect(.sent, gives: "send 3")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.answered(sent), gives: "report 4/6")
        run.expect(.reported, gives: "awaitAnswer")
        run.expect(Self.answered(b3), gives: "report 6/6")
        run.expect(.reported, gives: "record 2,3")
        let withheld = try #require(run.outcomes?.edits.first { $0.batch == 2 }?.records.first { $0.index == 200 })
        #expect(withheld.status == .failed && withheld.reason?.hasPrefix("not sent: an earlier edit of this feature did not apply") == true)
        run.expect(.recorded, gives: "finish")
        #expect(run.summary?.settled == [.applied: 4, .failed: 2])
    }

    @Test(
        "an outage: no batch starts, the batches it stopped go back (those that may have reached the service looked up first), the service is probed until it answers"
    )
    func outageAndRecovery() throws {
        let (b1, b2, b3) = (Self.batch(1), Self.batch(2), Self.batch(3))
        var run = Script(Self.configuration(concurrency: 2))
        run.expect(.opened(batches: [1, 2, 3], edits: 6), gives: "read 1,2,3")
        run.expect(.read([b1, b2, b3]), gives: "send 1")
        run.expect(.sent, gives: "send 2")
        run.expect(.sent, gives: "awaitAnswer")
        // Refused on every attempt before anything applied: not in doubt. Said once.
        run.expect(Self.unreachable(b1, inDoubt: false), after: .seconds(1), gives: "report 0/6 unavailable")
        run.expect(.reported, gives: "awaitAnswer")
        // Batch 3 does not start while the service is out of reach.
        run.expect(Self.unreachable(b2, inDoubt: true), after: .seconds(1), gives: "record 1")
        #expect(run.outcomes?.edits.map(\.state) == [.planned])
        run.expect(.recorded, gives: "probe 0 at 3000ms")
        run.expect(.probeFailed, after: .seconds(1), gives: "probe 0 at 5000ms")
        run.expect(.probeAnswered, after: .seconds(2), gives: "lookUp 2")
        run.expect(.lookedUp(found: 1), gives: "read 1,2")
        var rest = Self.batch(2)
        rest.edits.removeFirst()
        run.expect(.read([b1, rest]), gives: "send 1")
        run.expect(.sent, gives: "send 2")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.answered(b1), gives: "report 3/6")
        run.expect(.reported, gives: "send 3 after 1")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.answered(rest), gives: "report 4/6")
        run.expect(.reported, gives: "awaitAnswer")
        run.expect(Self.answered(b3), gives: "report 6/6")
        run.expect(.reported, gives: "record 2,3")
        run.expect(.recorded, gives: "finish")
        let summary = try #require(run.summary)
        #expect(summary.outages == 1 && summary.outageTime == .seconds(4) && summary.unavailable == nil)
        #expect(summary.reconciledBatches == 1 && summary.reconciledApplied == 1 && summary.settled == [.applied: 6])
        #expect(summary.requests == 19 && summary.batchesSent == 3)
    }

    @Test("an outage longer than --wait-for-service: probes at 1, 3, 7 and 10 s, then the run stops saying how long and why")
    func outagePastServiceWait() throws {
        let b1 = Self.batch(1)
        var run = Script(Self.configuration(concurrency: 1, serviceWait: .seconds(10), probeInterval: .seconds(4)))
        run.expect(.opened(batches: [1, 2], edits: 4), gives: "read 1,2")
        run.expect(.read([b1, Self.batch(2)]), gives: "send 1")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.unreachable(b1, inDoubt: true), gives: "report 0/4 unavailable")
        run.expect(.reported, gives: "probe 0 at 1000ms")
        run.expect(.probeFailed, after: .seconds(1), gives: "probe 0 at 3000ms")
        run.expect(.probeFailed, after: .seconds(2), gives: "probe 0 at 7000ms")
        run.expect(.probeFailed, after: .seconds(4), gives: "probe 0 at 10000ms")
        run.expect(.probeFailed, after: .seconds(3), gives: "record")
        run.expect(.recorded, gives: "finish")
        let summary = try #require(run.summary)
        #expect(summary.unavailable == "the service could not be reached for 10 s (HTTP 503)")
        #expect(summary.outages == 1 && summary.outageTime == .seconds(10) && !summary.interrupted && summary.batchesSent == 0)
    }

    @Test("a service throttling through every retry (HTTP 429) is an outage too: the batch waits, not in doubt, and goes again")
    func throttlingIsAnOutage() throws {
        let reason = try #require(BatchApplier.unavailability(.httpStatus(429)))
        let b1 = Self.batch(1)
        var run = Script(Self.configuration(concurrency: 1))
        run.expect(.opened(batches: [1], edits: 2), gives: "read 1")
        run.expect(.read([b1]), gives: "send 1")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.unreachable(b1, inDoubt: false, reason: reason), gives: "report 0/2 unavailable")
        run.expect(.reported, gives: "record 1")
        run.expect(.recorded, gives: "probe 0 at 1000ms")
        // Nothing to look up: no attempt of it can have applied.
        run.expect(.probeAnswered, after: .seconds(1), gives: "read 1")
        run.expect(.read([b1]), gives: "send 1")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.answered(b1), gives: "report 2/2")
        run.expect(.reported, gives: "record 1")
        run.expect(.recorded, gives: "finish")
        #expect(run.summary?.reconciledBatches == 0 && run.summary?.settled == [.applied: 2] && run.summary?.outageTime == .seconds(1))
    }

    @Test("the time spent waiting for the service is left out of the rate's pace")
    func outageLeftOutOfPace() {
        let b1 = Self.batch(1)
        var run = Script(Self.configuration(concurrency: 1, rate: 10))
        run.expect(.opened(batches: [1, 2], edits: 4), gives: "read 1,2")
        run.expect(.read([b1, Self.batch(2)]), gives: "sleep until 200ms")
        run.expect(.woke, after: .milliseconds(200), gives: "send 1")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.unreachable(b1, inDoubt: false), after: .milliseconds(100), gives: "report 0/4 unavailable")
        run.expect(.reported, gives: "record 1")
        run.expect(.recorded, gives: "probe 0 at 1300ms")
        run.expect(.probeAnswered, after: .seconds(1), gives: "read 1")
        // 1 s waited: batch 1 is due at 1.2 s (late, so at once), batch 2 at 1.4 s.
        run.expect(.read([b1]), gives: "send 1")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.answered(b1), gives: "report 2/4")
        run.expect(.reported, gives: "sleep until 1400ms")
    }

    @Test("a look-up after an outage that finds the service gone again waits on, to the same deadline")
    func lookUpFindsOutageAgain() throws {
        let b1 = Self.batch(1)
        var run = Script(Self.configuration(concurrency: 1, serviceWait: .seconds(10), probeInterval: .seconds(4)))
        run.expect(.opened(batches: [1], edits: 2), gives: "read 1")
        run.expect(.read([b1]), gives: "send 1")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.unreachable(b1, inDoubt: true), gives: "report 0/2 unavailable")
        run.expect(.reported, gives: "probe 0 at 1000ms")
        run.expect(.probeAnswered, after: .seconds(1), gives: "lookUp 1")
        run.expect(.lookUpUnavailable("timed out"), after: .seconds(5), gives: "probe 0 at 7000ms")
        run.expect(.probeFailed, after: .seconds(1), gives: "probe 0 at 9000ms")
        run.expect(.probeFailed, after: .seconds(2), gives: "probe 0 at 10000ms")
        run.expect(.probeFailed, after: .seconds(1), gives: "record")
        run.expect(.recorded, gives: "finish")
        #expect(run.summary?.unavailable == "the service could not be reached for 10 s (timed out)")
    }

    @Test("an outage while a barrier batch waits: the stopped batches go first, then the barrier, still after them")
    func outageDuringBarrier() {
        let b1 = Self.batch(1, keys: ["{A}", "{B}"])
        let b2 = Self.batch(2, keys: ["{A}", "{C}"], barrier: true)
        let b3 = Self.batch(3)
        var run = Script(Self.configuration(concurrency: 4))
        run.expect(.opened(batches: [1, 2, 3], edits: 6), gives: "read 1,2,3")
        run.expect(.read([b1, b2, b3]), gives: "send 1")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.unreachable(b1, inDoubt: false), after: .seconds(1), gives: "report 0/6 unavailable")
        run.expect(.reported, gives: "record 1")
        run.expect(.recorded, gives: "probe 0 at 2000ms")
        run.expect(.probeAnswered, after: .seconds(1), gives: "read 1")
        run.expect(.read([b1]), gives: "send 1")
        // The barrier is held again, behind batch 1.
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.answered(b1), gives: "report 2/6")
        run.expect(.reported, gives: "send 2 after 1")
        run.expect(.sent, gives: "send 3")
        run.expect(.sent, gives: "awaitAnswer")
    }

    @Test("Ctrl-C: no batch starts; those in flight that come back cancelled stay in doubt, those that come back answered are written")
    func cancelWhileSending() throws {
        let (b1, b2, b3) = (Self.batch(1), Self.batch(2), Self.batch(3))
        var run = Script(Self.configuration(concurrency: 2))
        run.expect(.opened(batches: [1, 2, 3], edits: 6), gives: "read 1,2,3")
        run.expect(.read([b1, b2, b3]), gives: "send 1")
        run.expect(.sent, gives: "send 2")
        run.expect(.sent, gives: "awaitAnswer")
        run.machine.cancel()
        run.expect(Self.cancelled(b1), gives: "awaitAnswer")
        run.expect(Self.answered(b2), gives: "report 2/6")
        run.expect(.reported, gives: "record 2")
        run.expect(.recorded, gives: "finish")
        let summary = try #require(run.summary)
        #expect(summary.interrupted && summary.batchesSent == 1 && summary.unavailable == nil)
    }

    @Test("Ctrl-C while a batch waits for its time at the rate's pace: it is neither started nor marked")
    func cancelWhilePaced() throws {
        var run = Script(Self.configuration(concurrency: 2, rate: 1))
        run.expect(.opened(batches: [1], edits: 2), gives: "read 1")
        run.expect(.read([Self.batch(1)]), gives: "sleep until 2000ms")
        run.machine.cancel()
        run.expect(.woke, after: .milliseconds(300), gives: "record")
        run.expect(.recorded, gives: "finish")
        #expect(run.summary?.interrupted == true && run.summary?.batchesSent == 0)
    }

    @Test("Ctrl-C during a probe: the run stops at once, fails no edit, counts the wait, and leaves the batches for --resume")
    func cancelDuringProbe() throws {
        let b1 = Self.batch(1)
        var run = Script(Self.configuration(concurrency: 1))
        run.expect(.opened(batches: [1], edits: 2), gives: "read 1")
        run.expect(.read([b1]), gives: "send 1")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.unreachable(b1, inDoubt: true), after: .seconds(1), gives: "report 0/2 unavailable")
        run.expect(.reported, gives: "probe 0 at 2000ms")
        run.expect(.probeFailed, after: .seconds(1), gives: "probe 0 at 4000ms")
        run.expect(.cancelled, after: .milliseconds(500), gives: "record")
        // Batch 1 may have reached the service: nothing of it is written, it stays in doubt.
        #expect(run.outcomes?.isEmpty == true)
        run.expect(.recorded, gives: "finish")
        let summary = try #require(run.summary)
        #expect(summary.interrupted && summary.unavailable == nil && summary.outageTime == .milliseconds(1500) && summary.settled.isEmpty)
    }

    @Test("Ctrl-C while the outcomes are written before the wait for the service: the wait ends before its first probe, counted")
    func cancelBeforeProbing() throws {
        let b1 = Self.batch(1)
        var run = Script(Self.configuration(concurrency: 1))
        run.expect(.opened(batches: [1], edits: 2), gives: "read 1")
        run.expect(.read([b1]), gives: "send 1")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.unreachable(b1, inDoubt: false), after: .seconds(1), gives: "report 0/2 unavailable")
        run.expect(.reported, gives: "record 1")
        run.machine.cancel()
        run.expect(.recorded, after: .milliseconds(20), gives: "record")
        run.expect(.recorded, gives: "finish")
        let summary = try #require(run.summary)
        #expect(summary.interrupted && summary.unavailable == nil && summary.outageTime == .milliseconds(20))
    }

    @Test("Ctrl-C while a stopped batch is looked up after an outage: the run stops, the wait counted")
    func cancelDuringLookUp() throws {
        let b1 = Self.batch(1)
        var run = Script(Self.configuration(concurrency: 1))
        run.expect(.opened(batches: [1], edits: 2), gives: "read 1")
        run.expect(.read([b1]), gives: "send 1")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.unreachable(b1, inDoubt: true), gives: "report 0/2 unavailable")
        run.expect(.reported, gives: "probe 0 at 1000ms")
        run.expect(.probeAnswered, after: .seconds(1), gives: "lookUp 1")
        run.expect(.cancelled, after: .seconds(1), gives: "record")
        run.expect(.recorded, gives: "finish")
        #expect(run.summary?.interrupted == true && run.summary?.outageTime == .seconds(2))
    }

    @Test("a resume looks up its batches in doubt first, waiting for the service as sending does, then sends what is open")
    func resumeWithBatchesInDoubt() throws {
        let b3 = Self.batch(3)
        var run = Script(Self.configuration(concurrency: 2), inDoubt: [1, 2])
        #expect(run.action.text == "lookUp 1 waiting")
        run.expect(.lookedUp(found: 2), after: .seconds(1), gives: "lookUp 2 waiting")
        run.expect(.lookedUp(found: 1), gives: "listOpen")
        // Batch 1 was found whole; batch 2 has one edit left.
        var rest = Self.batch(2)
        rest.edits.removeFirst()
        run.expect(.opened(batches: [2, 3], edits: 3), gives: "read 2,3")
        run.expect(.read([rest, b3]), gives: "send 2")
        run.expect(.sent, gives: "send 3")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.answered(rest), gives: "report 1/3")
        run.expect(.reported, gives: "awaitAnswer")
        run.expect(Self.answered(b3), gives: "report 3/3")
        run.expect(.reported, gives: "record 2,3")
        run.expect(.recorded, gives: "finish")
        let summary = try #require(run.summary)
        #expect(summary.reconciledBatches == 2 && summary.reconciledApplied == 3 && summary.settled == [.applied: 3] && summary.batchesSent == 2)
    }

    @Test("a resume whose look-ups find the service out of reach for the whole wait stops before sending; the batches stay in doubt")
    func resumeWhileUnreachable() throws {
        var run = Script(Self.configuration(), inDoubt: [1, 2])
        run.expect(.lookUpUnavailable("the service could not be reached for 1 min (timed out)"), after: .seconds(60), gives: "finish")
        let summary = try #require(run.summary)
        #expect(summary.unavailable == "the service could not be reached for 1 min (timed out)")
        #expect(summary.outages == 1 && summary.outageTime == .seconds(60) && summary.elapsed == .seconds(60) && summary.reconciledBatches == 0)
    }

    @Test("a resume cancelled before it starts looks nothing up and sends nothing")
    func resumeCancelled() throws {
        var run = Script(Self.configuration(), inDoubt: [1], cancelled: true)
        #expect(run.action.text == "listOpen")
        run.expect(.opened(batches: [1, 2], edits: 4), gives: "record")
        run.expect(.recorded, gives: "finish")
        #expect(run.summary?.interrupted == true && run.summary?.reconciledBatches == 0 && run.summary?.batchesSent == 0)
    }

    @Test("a plan still being made: batches come as it completes them, outcomes are written before waiting for more, the total grows")
    func streamingPlan() throws {
        let (b1, b2) = (Self.batch(1), Self.batch(2))
        var run = Script(Self.configuration(concurrency: 2, streaming: true))
        #expect(run.action.text == "awaitPlan")
        run.expect(.planned([1, 2]), gives: "read 1,2")
        run.expect(.read([b1, b2]), gives: "send 1")
        run.expect(.sent, gives: "send 2")
        run.expect(.sent, gives: "awaitAnswer")
        run.expect(Self.answered(b1), gives: "report 2/4 planning")
        run.expect(.reported, gives: "record 1")
        run.expect(.recorded, gives: "awaitPlan")
        run.expect(.planEnded, gives: "awaitAnswer")
        run.expect(Self.answered(b2), gives: "report 4/4")
        run.expect(.reported, gives: "record 2")
        run.expect(.recorded, gives: "finish")
        #expect(run.summary?.batchesSent == 2)
    }

    @Test("the probes' pacing: 1 s, doubling to the probe interval, the last cut short at the deadline")
    func probePacing() {
        var probes = OutageProbes(
            from: ManualClock.Instant(offset: .zero), until: ManualClock.Instant(offset: .seconds(10)), probeInterval: .seconds(4))
        var times: [Duration] = []
        var now = ManualClock.Instant(offset: .zero)
        while let next = probes.next(now: now) {
            times.append(next.offset)
            now = next
        }
        #expect(times == [.seconds(1), .seconds(3), .seconds(7), .seconds(10)])
    }

    @Test("an event its stage cannot have asked for is reported in the summary and decides nothing (a debug build stops on it)")
    func impossibleEvent() throws {
        let b1 = Self.batch(1)
        var configuration = Self.configuration(concurrency: 1)
        configuration.trapsImpossibleEvents = false
        var run = Script(configuration)
        // Listing open batches, the shell answers with a probe's answer: ignored, the listing asked again.
        run.expect(.probeAnswered, gives: "listOpen")
        run.expect(.opened(batches: [1], edits: 2), gives: "read 1")
        run.expect(.read([b1]), gives: "send 1")
        run.expect(.sent, gives: "awaitAnswer")
        // A batch's answer, then a look-up's that nothing asked for: the run goes on as if it had not come.
        run.expect(Self.answered(b1), gives: "report 2/2")
        run.expect(.lookedUp(found: 2), gives: "record 1")
        run.expect(.recorded, gives: "finish")
        let summary = try #require(run.summary)
        #expect(summary.settled == [.applied: 2] && summary.reconciledApplied == 0)
        #expect(
            summary.anomalies == [
                "the applier's dispatcher ignored a probe's answer while listing open batches",
                "the applier's dispatcher ignored a look-up's answer while sending",
            ])
    }
}
