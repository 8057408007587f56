import Foundation
import LoadRunner
import Testing

/// A duration in seconds.
private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The executors' pure schedules, checked against k6's documented behaviour.
@Suite struct ExecutorScheduleTests {
    @Test("constant-arrival-rate: rate 10 per 1s starts an iteration every 100 ms, 10 in 1 s (k6's example)")
    func constantArrivalRate() throws {
        let schedule = OpenSchedule(ConstantArrivalRate(rate: 10, timeUnit: .seconds(1), duration: .seconds(1), preAllocatedVUs: 2))
        #expect(schedule.plannedIterations == 10)
        let starts = (0..<10).compactMap { schedule.start(of: $0) }
        #expect(starts.count == 10)
        for (k, start) in starts.enumerated() {
            let expected = Double(k) * 0.1
            #expect(abs(seconds(start) - expected) < 1e-6)
        }
        #expect(schedule.start(of: 10) == nil)
        // A rate per minute: 30 per 1m for 2m is one every 2 s, 60 in all.
        let perMinute = OpenSchedule(ConstantArrivalRate(rate: 30, timeUnit: .seconds(60), duration: .seconds(120), preAllocatedVUs: 1))
        #expect(perMinute.plannedIterations == 60)
        #expect(perMinute.start(of: 1).map { abs(seconds($0) - 2) < 1e-6 } == true)
    }

    @Test("the open pacer fires at once when behind and waits when ahead (vegeta's pacer)")
    func pacer() {
        let schedule = OpenSchedule(ConstantArrivalRate(rate: 10, timeUnit: .seconds(1), duration: .seconds(1), preAllocatedVUs: 2))
        #expect(schedule.pace(elapsed: .zero, started: 0) == .start(intended: .zero))
        #expect(schedule.pace(elapsed: .milliseconds(50), started: 1) == .wait(until: .milliseconds(100)))
        // 350 ms late: iterations 1, 2 and 3 are all due, each with its own intended start.
        if case .start(let intended) = schedule.pace(elapsed: .milliseconds(350), started: 1) {
            #expect(abs(seconds(intended) - 0.1) < 1e-6)
        } else {
            Issue.record("expected a start")
        }
        #expect(schedule.pace(elapsed: .seconds(2), started: 10) == .done)
    }

    @Test("ramping-arrival-rate integrates a linear ramp: 0 → 10/s over 10 s starts 50 iterations, denser at the end")
    func rampingArrivalRate() throws {
        let schedule = OpenSchedule(
            RampingArrivalRate(startRate: 0, timeUnit: .seconds(1), stages: [Stage(duration: .seconds(10), target: 10)], preAllocatedVUs: 5))
        #expect(schedule.plannedIterations == 50)
        // N(t) = t²/2 for a slope of 1/s², so iteration k is due at sqrt(2k).
        for k in [1, 8, 18, 32, 49] {
            let start = try #require(schedule.start(of: k))
            let expected = (2 * Double(k)).squareRoot()
            #expect(abs(seconds(start) - expected) < 1e-6, "iteration \(k)")
        }
        // A hold stage after the ramp continues at 10/s.
        let held = OpenSchedule(
            RampingArrivalRate(
                startRate: 0, timeUnit: .seconds(1), stages: [Stage(duration: .seconds(10), target: 10), Stage(duration: .seconds(5), target: 10)],
                preAllocatedVUs: 5))
        #expect(held.plannedIterations == 100)
        #expect(held.start(of: 60).map { abs(seconds($0) - 11) < 1e-6 } == true)
    }

    @Test("ramping-vus interpolates stages linearly, one VU at a time, and parks VUs above the target")
    func rampingVUs() throws {
        let stages = VUStages(start: 0, stages: [Stage(duration: .seconds(10), target: 10), Stage(duration: .seconds(10), target: 0)])
        #expect(stages.vus(at: .zero) == 0)
        #expect(stages.vus(at: .milliseconds(999)) == 0)
        #expect(stages.vus(at: .seconds(1)) == 1)
        #expect(stages.vus(at: .milliseconds(5500)) == 5)
        #expect(stages.vus(at: .seconds(10)) == 10)
        #expect(stages.vus(at: .seconds(15)) == 5)
        // VU 4 (the fifth) becomes active at 5 s and stays until the count falls to 4 at 16 s.
        #expect(stages.nextActive(vu: 4, after: .zero) == .seconds(5))
        #expect(stages.nextActive(vu: 4, after: .seconds(12)) == .seconds(12))
        #expect(stages.nextActive(vu: 4, after: .seconds(17)) == nil)
        let schedule = try #require(ClosedSchedule(.rampingVUs(RampingVUs(startVUs: 0, stages: [Stage(duration: .seconds(10), target: 10)]))))
        #expect(schedule.vus == 10)
        #expect(schedule.decide(vu: 4, vuIteration: 0, claimed: 0, elapsed: .seconds(2)) == .wait(until: .seconds(5)))
        #expect(schedule.decide(vu: 4, vuIteration: 0, claimed: 0, elapsed: .seconds(6)) == .start)
        #expect(schedule.decide(vu: 4, vuIteration: 0, claimed: 0, elapsed: .seconds(10)) == .stop(.durationDone))
    }

    @Test("per-vu-iterations and constant-vus stop on their own limits")
    func closedExecutors() throws {
        let perVU = try #require(ClosedSchedule(.perVUIterations(PerVUIterations(vus: 3, iterations: 2, maxDuration: .seconds(5)))))
        #expect(perVU.decide(vu: 2, vuIteration: 1, claimed: 99, elapsed: .zero) == .start)
        #expect(perVU.decide(vu: 2, vuIteration: 2, claimed: 0, elapsed: .zero) == .stop(.iterationsDone))
        #expect(perVU.decide(vu: 0, vuIteration: 0, claimed: 0, elapsed: .seconds(5)) == .stop(.maxDuration))
        let constant = try #require(ClosedSchedule(.constantVUs(ConstantVUs(vus: 4, duration: .seconds(30)))))
        #expect(constant.decide(vu: 3, vuIteration: 1000, claimed: 5000, elapsed: .seconds(29)) == .start)
        #expect(constant.decide(vu: 3, vuIteration: 0, claimed: 0, elapsed: .seconds(30)) == .stop(.durationDone))
        #expect(ExecutorConfig.perVUIterations(PerVUIterations(vus: 3, iterations: 2)).plannedIterations == 6)
    }

    @Test("a weighted mix picks each operation in proportion to its weight, the same way for every run")
    func mixWeights() {
        let picker = OperationPicker(weights: [6, 3, 1], seed: 42)
        var counts = [0, 0, 0]
        for index in 0..<100_000 { counts[picker.pick(index)] += 1 }
        #expect(abs(Double(counts[0]) / 100_000 - 0.6) < 0.01)
        #expect(abs(Double(counts[1]) / 100_000 - 0.3) < 0.01)
        #expect(abs(Double(counts[2]) / 100_000 - 0.1) < 0.01)
        #expect((0..<1000).map(picker.pick) == (0..<1000).map(OperationPicker(weights: [6, 3, 1], seed: 42).pick))
        #expect(OperationPicker(weights: [1], seed: 1).pick(12345) == 0)
    }
}
