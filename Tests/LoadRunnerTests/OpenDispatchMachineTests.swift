import Testing

@testable import LoadRunner

/// The arrival-rate dispatcher's decisions, driven by offsets alone (no clock, no tasks): what starts, what is
/// dropped, when the pool grows, when the dispatcher sleeps, and how the scenario ends.
@Suite struct OpenDispatchMachineTests {
    typealias Action = OpenDispatchMachine.Action

    /// 10 iterations a second for 1 s (due at 0, 0.1, …, 0.9 s), from a pool of `preAllocated` growing to `max`.
    static func machine(
        preAllocated: Int = 1, max: Int = 2, gracefulStop: Duration = .milliseconds(500), numbering: ExecutionTuple = .whole
    )
        -> OpenDispatchMachine
    {
        let schedule = OpenSchedule(ConstantArrivalRate(rate: 10, duration: .seconds(1), preAllocatedVUs: preAllocated, maxVUs: max))
        return OpenDispatchMachine(schedule: schedule, numbering: numbering, gracefulStop: gracefulStop)
    }

    static func ms(_ value: Int) -> Duration { .milliseconds(value) }

    @Test("on time: each iteration starts when it is due, and the dispatcher sleeps until the next one")
    func onTime() {
        var machine = Self.machine()
        #expect(machine.handle(.wake, at: .zero) == [.start(global: 0, intended: .zero), .sleep(until: Self.ms(100))])
        #expect(machine.handle(.finished, at: Self.ms(40)) == [], "a finished iteration wakes nothing while a sleep is pending")
        #expect(machine.handle(.wake, at: Self.ms(100)) == [.start(global: 1, intended: Self.ms(100)), .sleep(until: Self.ms(200))])
        #expect(machine.inFlight == 1)
        #expect(machine.poolSize == 1)
    }

    @Test("behind schedule: every iteration already due starts at once, measured from its intended start, and the pool grows to what is in flight")
    func behind() {
        var machine = Self.machine(preAllocated: 1, max: 3)
        let actions = machine.handle(.wake, at: Self.ms(250))
        #expect(
            actions == [
                .start(global: 0, intended: .zero), .growPool(to: 2), .start(global: 1, intended: Self.ms(100)), .growPool(to: 3),
                .start(global: 2, intended: Self.ms(200)), .sleep(until: Self.ms(300)),
            ])
        #expect(machine.poolSize == 3)
        // The pool never shrinks: finishing and starting again grows nothing.
        _ = machine.handle(.finished, at: Self.ms(260))
        #expect(machine.handle(.wake, at: Self.ms(300)) == [.start(global: 3, intended: Self.ms(300)), .sleep(until: Self.ms(400))])
        #expect(machine.poolSize == 3)
    }

    @Test("an iteration due while every VU of maxVUs is busy is dropped, not queued, and the next one still starts on time")
    func drops() {
        var machine = Self.machine(preAllocated: 1, max: 1)
        #expect(machine.handle(.wake, at: .zero) == [.start(global: 0, intended: .zero), .sleep(until: Self.ms(100))])
        #expect(machine.handle(.wake, at: Self.ms(100)) == [.drop(intended: Self.ms(100)), .sleep(until: Self.ms(200))])
        #expect(
            machine.handle(.wake, at: Self.ms(350)) == [.drop(intended: Self.ms(200)), .drop(intended: Self.ms(300)), .sleep(until: Self.ms(400))])
        _ = machine.handle(.finished, at: Self.ms(380))
        #expect(machine.handle(.wake, at: Self.ms(400)) == [.start(global: 4, intended: Self.ms(400)), .sleep(until: Self.ms(500))])
        #expect(machine.dispatched == 5)
    }

    /// Runs the whole schedule on time with iterations that never finish before the end, `max` at most in flight.
    static func dispatchAll(_ machine: inout OpenDispatchMachine) -> [Action] {
        var actions: [Action] = []
        for tenth in 0..<10 { actions += machine.handle(.wake, at: ms(tenth * 100)) }
        return actions
    }

    @Test(
        "a stall at the end: once the last iteration is dispatched the deadline is armed at end + gracefulStop; reaching it cancels what still runs")
    func stallAtTheEnd() {
        var machine = Self.machine(preAllocated: 2, max: 2)
        let actions = Self.dispatchAll(&machine)
        #expect(actions.filter { if case .start = $0 { true } else { false } }.count == 2)
        #expect(actions.filter { if case .drop = $0 { true } else { false } }.count == 8)
        #expect(actions.last == .armDeadline(at: .seconds(1) + Self.ms(500)), "\(actions)")
        #expect(machine.handle(.wake, at: .seconds(1)) == [], "after the last dispatch nothing wakes the dispatcher")
        #expect(machine.handle(.deadline(reached: true), at: Self.ms(1500)) == [.cancelAll])
        #expect(machine.reason == .gracefulStop)
        #expect(machine.handle(.finished, at: Self.ms(1501)) == [], "a stopped dispatcher ignores the cancelled iterations' returns")
    }

    @Test("the last iterations finishing before the deadline end the scenario then, at duration, not gracefulStop")
    func drainsBeforeTheDeadline() {
        var machine = Self.machine(preAllocated: 2, max: 2)
        _ = Self.dispatchAll(&machine)
        #expect(machine.handle(.finished, at: Self.ms(1100)) == [])
        #expect(machine.handle(.finished, at: Self.ms(1200)) == [.cancelAll])
        #expect(machine.reason == .durationDone)
        #expect(machine.handle(.deadline(reached: false), at: Self.ms(1200)) == [])
    }

    @Test("a deadline cancelled before it is reached changes nothing")
    func deadlineNotReached() {
        var machine = Self.machine(preAllocated: 2, max: 2)
        _ = Self.dispatchAll(&machine)
        #expect(machine.handle(.deadline(reached: false), at: Self.ms(1100)) == [])
        #expect(machine.inFlight == 2)
        #expect(machine.reason == .durationDone)
    }

    @Test("cancelling stops dispatching at once: with iterations in flight the deadline is armed, with none everything stops")
    func cancel() {
        var busy = Self.machine()
        _ = busy.handle(.wake, at: .zero)
        #expect(busy.handle(.cancel, at: Self.ms(50)) == [.armDeadline(at: Self.ms(1500))])
        #expect(busy.handle(.wake, at: Self.ms(100)) == [], "no iteration starts after cancellation")
        #expect(busy.handle(.finished, at: Self.ms(120)) == [.cancelAll])

        var idle = Self.machine()
        _ = idle.handle(.wake, at: .zero)
        _ = idle.handle(.finished, at: Self.ms(10))
        #expect(idle.handle(.cancel, at: Self.ms(50)) == [.cancelAll])
    }

    @Test("a schedule with nothing left to start stops at once when nothing runs")
    func nothingToDo() {
        var machine = Self.machine()
        #expect(machine.handle(.wake, at: .seconds(5)).last == .armDeadline(at: Self.ms(1500)))
        var empty = OpenDispatchMachine(
            schedule: OpenSchedule(RampingArrivalRate(stages: [], preAllocatedVUs: 1)), gracefulStop: .seconds(30))
        #expect(empty.handle(.wake, at: .zero) == [.cancelAll])
    }

    @Test("under an execution segment the dispatcher starts only the whole test's arrivals it owns, at the whole test's times")
    func segment() throws {
        let sequence = try ExecutionSegmentSequence(parsing: "0,1/2,1")
        let half = try ExecutionTuple(segment: sequence.segments[1], sequence: sequence)
        var machine = Self.machine(preAllocated: 10, max: 10, numbering: half)
        var starts: [Int] = []
        for tenth in 0..<10 {
            for case .start(let global, let intended) in machine.handle(.wake, at: Self.ms(tenth * 100)) {
                #expect(intended == Self.ms(global * 100))
                starts.append(global)
            }
        }
        #expect(starts.count == 5)
        #expect(starts.allSatisfy(half.owns))
    }
}
