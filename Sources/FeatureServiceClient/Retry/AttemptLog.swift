import FeatureModel

/// The attempts of one operation as they happen, with the clock that times them: the retry loop's bookkeeping.
/// A value owned by one operation's task; never shared.
struct AttemptLog: Sendable {
    let clock: AttemptClock
    private(set) var attempts: [Attempt] = []

    init(clock: AttemptClock) {
        self.clock = clock
    }

    /// Appends the attempt that started at `startedAt` and ended now.
    mutating func record(purpose: Attempt.Purpose, startedAt: Duration, response: HTTPResponse?, failure: AttemptFailure?) {
        attempts.append(
            Attempt(
                number: attempts.count + 1, purpose: purpose, startedAt: startedAt, duration: clock.elapsed() - startedAt,
                status: response?.status, failure: failure, timing: response?.timing))
    }

    /// Marks the last attempt as answered by a token refresh and a replay.
    mutating func markTokenRefreshed() {
        guard !attempts.isEmpty else { return }
        attempts[attempts.count - 1].refreshedToken = true
    }

    /// Attempts of purpose ``Attempt/Purpose/request`` so far.
    var requestCount: Int { attempts.count { $0.purpose == .request && !$0.refreshedToken } }

    /// What `policy` decides after `error` (the last attempt's failure), counting `attempts` attempts made
    /// (by default the request attempts, replays after a token refresh excluded).
    func decide(
        after error: FeatureServiceError, policy: RetryPolicy, attempts: Int? = nil, using generator: inout some RandomNumberGenerator
    ) -> RetryPolicy.Decision {
        policy.decide(
            afterAttempt: max(1, attempts ?? requestCount), failure: error.attemptFailure, elapsed: clock.elapsed(),
            retryAfter: error.retryAfterDelay, using: &generator)
    }

    /// Sleeps `delay` through the clock and records it as the last attempt's backoff.
    /// - Throws: `CancellationError` when the task is cancelled during the sleep.
    mutating func sleep(_ delay: Duration) async throws {
        if !attempts.isEmpty { attempts[attempts.count - 1].backoff += delay }
        try await clock.sleep(delay)
    }
}

extension RetryPolicy {
    /// The jitter source this policy asks for: seeded SplitMix64, or the system generator.
    func makeGenerator() -> JitterGenerator {
        JitterGenerator(seed: jitterSeed)
    }
}

/// SplitMix64 when seeded (reproducible delays), the system generator otherwise.
struct JitterGenerator: RandomNumberGenerator, Sendable {
    private var seeded: SplitMix64?
    private var system = SystemRandomNumberGenerator()

    init(seed: UInt64?) {
        seeded = seed.map(SplitMix64.init(seed:))
    }

    mutating func next() -> UInt64 {
        if seeded != nil { return seeded!.next() }
        return system.next()
    }
}
