import Synchronization

/// A `Clock` that moves only when told: tests of retry loops and token expiry run in no real time.
///
/// Two modes. By default (`advancesWhenSleeping: true`) a sleep moves the clock to its deadline at once and
/// returns, and ``sleeps`` records how long each sleep asked for: a retry loop then runs straight through with
/// exact, checkable timing. With `advancesWhenSleeping: false` a sleep suspends until ``advance(by:)`` moves the
/// clock past its deadline (or the task is cancelled).
///
/// ```swift
/// let clock = ManualClock()
/// let layer = FeatureLayerClient(url: url, transport: transport, authentication: nil, clock: clock)
/// _ = try await layer.applyEdits(edits, retry: policy)
/// #expect(clock.sleeps == [.milliseconds(37)])
/// ```
package final class ManualClock: Clock, Sendable {
    /// A point on the manual clock: the time since it started.
    package struct Instant: InstantProtocol, Sendable {
        /// Time since the clock started.
        package var offset: Duration

        package init(offset: Duration) { self.offset = offset }
        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleeps: [Duration] = []
        var sleepers: [Sleeper] = []
        var nextId = 0
    }

    private let state = Mutex(State())
    private let advancesWhenSleeping: Bool

    /// A clock at offset zero.
    /// - Parameter advancesWhenSleeping: Whether a sleep moves the clock to its deadline at once (default) or
    ///   waits for ``advance(by:)``.
    package init(advancesWhenSleeping: Bool = true) {
        self.advancesWhenSleeping = advancesWhenSleeping
    }

    package var now: Instant { state.withLock { $0.now } }
    package var minimumResolution: Duration { .zero }

    /// The length of every sleep so far, in order.
    package var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// Sleeps until `deadline`: at once (moving the clock) or until ``advance(by:)`` gets there, per the mode.
    /// - Throws: `CancellationError` when the task is cancelled.
    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        if advancesWhenSleeping {
            state.withLock { state in
                state.sleeps.append(max(.zero, state.now.duration(to: deadline)))
                if state.now < deadline { state.now = deadline }
            }
            return
        }
        let id = state.withLock { state -> Int in
            state.nextId += 1
            state.sleeps.append(max(.zero, state.now.duration(to: deadline)))
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Bool in
                    if deadline <= state.now || Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Moves the clock forward by `duration` and wakes the sleepers whose deadline has come.
    package func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// How many sleeps are waiting for ``advance(by:)``.
    package var waitingSleepers: Int { state.withLock { $0.sleepers.count } }
}
