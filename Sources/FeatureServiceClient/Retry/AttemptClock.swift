/// The injected clock of one operation, reduced to what the retry loop needs: time since the operation started,
/// and sleeping. Wrapping the clock here keeps its `Instant` type out of every signature.
///
/// Every request of a load test starts one, so the usual clock, `ContinuousClock`, is read directly; any other clock
/// (a manual one in tests) goes through two closures, which cost an allocation each.
struct AttemptClock: Sendable {
    private enum Source: Sendable {
        case continuous(start: ContinuousClock.Instant)
        case other(elapsed: @Sendable () -> Duration, sleep: @Sendable (Duration) async throws -> Void)
    }

    private let source: Source

    /// Starts measuring on `clock` now.
    init<C: Clock<Duration>>(_ clock: C) {
        if C.self == ContinuousClock.self {
            source = .continuous(start: ContinuousClock.now)
            return
        }
        let start = clock.now
        source = .other(
            elapsed: { start.duration(to: clock.now) },
            sleep: { delay in try await clock.sleep(until: clock.now.advanced(by: delay), tolerance: nil) })
    }

    /// Time since this value was made.
    func elapsed() -> Duration {
        switch source {
        case .continuous(let start): start.duration(to: .now)
        case .other(let elapsed, _): elapsed()
        }
    }

    /// Sleeps through the clock.
    /// - Throws: `CancellationError` when the task is cancelled during the sleep.
    func sleep(_ delay: Duration) async throws {
        switch source {
        case .continuous: try await ContinuousClock().sleep(until: .now.advanced(by: delay), tolerance: nil)
        case .other(_, let sleep): try await sleep(delay)
        }
    }
}
