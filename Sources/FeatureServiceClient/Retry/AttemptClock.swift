/// The injected clock of one operation, reduced to what the retry loop needs: time since the operation started,
/// and sleeping. Wrapping the clock here keeps its `Instant` type out of every signature.
struct AttemptClock: Sendable {
    /// Time since this value was made.
    let elapsed: @Sendable () -> Duration
    /// Sleeps through the clock.
    /// - Throws: `CancellationError` when the task is cancelled during the sleep.
    let sleep: @Sendable (Duration) async throws -> Void

    /// Starts measuring on `clock` now.
    init<C: Clock<Duration>>(_ clock: C) {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleep = { delay in try await clock.sleep(until: clock.now.advanced(by: delay), tolerance: nil) }
    }
}
