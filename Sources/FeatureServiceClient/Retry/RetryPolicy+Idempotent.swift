extension RetryPolicy {
    /// Runs `operation`, an idempotent one (a metadata load, a count, a look-up of several requests), and runs it
    /// again as this policy allows, judging each failure as the client judges its own requests.
    ///
    /// A ``FeatureServiceError`` goes to ``decide(afterAttempt:failure:elapsed:retryAfter:using:)``: classified by
    /// ``RetryClassification``, its `Retry-After` (if the service sent one) setting the delay, otherwise a full-jitter
    /// backoff; at most ``maximumAttempts`` runs, and no run starting after ``budget``, measured on `clock` from the
    /// start of the first. Other errors (`CancellationError` among them) end it at once, as does a failure once the
    /// task is cancelled. Isolation: runs in the caller's; `operation` is called on it, one run at a time.
    ///
    /// Give the operation's own requests no policy: one inside would multiply the attempts.
    ///
    /// ```swift
    /// let count = try await policy.retrying(on: clock) { try await service.layer(id: 0).count() }
    /// ```
    /// - Parameters:
    ///   - clock: Times the budget and the sleeps between runs; a manual clock in tests.
    ///   - operation: The work to run; it must be safe to repeat.
    /// - Returns: What the successful run returned.
    /// - Throws: The last ``FeatureServiceError`` once the policy stops, with every run's attempts in
    ///   ``FeatureServiceError/attempts`` and the policy's ``FeatureServiceError/stopReason`` (unless the operation
    ///   set one); the operation's other errors as they are; `CancellationError` when cancelled during a sleep.
    package func retrying<T>(on clock: some Clock<Duration>, _ operation: () async throws -> T) async throws -> T {
        let timing = AttemptClock(clock)
        var jitter = makeGenerator()
        var attempts: [Attempt] = []
        var started = Duration.zero
        return try await RetryDriver.run {
            started = timing.elapsed()
            return try await operation()
        } decide: { error, runs in
            // This run's attempts, numbered and timed as parts of the whole.
            for var attempt in error.attempts {
                attempt.number = attempts.count + 1
                attempt.startedAt += started
                attempts.append(attempt)
            }
            error.attempts = attempts
            let decision = decide(
                afterAttempt: runs, failure: error.attemptFailure, elapsed: timing.elapsed(), retryAfter: error.retryAfterDelay, using: &jitter)
            return Task.isCancelled ? .stop : decision.step(annotating: &error)
        } sleep: { delay in
            if !attempts.isEmpty { attempts[attempts.count - 1].backoff += delay }
            try await timing.sleep(delay)
        }
    }
}
