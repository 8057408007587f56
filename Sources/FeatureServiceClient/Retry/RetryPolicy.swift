/// When and how long to wait before repeating a failed request: capped exponential backoff with full jitter, a
/// maximum number of attempts, a total time budget, and `Retry-After` honoured.
///
/// A pure value: ``decide(afterAttempt:failure:elapsed:retryAfter:using:)`` answers from its inputs alone and is
/// tested without I/O. The client's retry loop carries out its decisions, sleeping through an injected `Clock`.
///
/// The backoff before retry *n* (n = 1 after the first failed attempt) is drawn uniformly from
/// `0 … min(maximumBackoff, initialBackoff × multiplier^(n−1))` ("full jitter"). With the defaults the ceilings are:
///
/// | retry | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 and later |
/// |---|---|---|---|---|---|---|---|---|
/// | ceiling | 100 ms | 200 ms | 400 ms | 800 ms | 1.6 s | 3.2 s | 6.4 s | 10 s |
///
/// A `Retry-After` the service sent replaces the jittered delay (it is the server's word on when to come back).
/// No retry starts once the next attempt would begin after ``budget`` (measured from the start of the first
/// attempt), and no more than ``maximumAttempts`` attempts are made in all.
///
/// ```swift
/// var policy = RetryPolicy()
/// policy.maximumAttempts = 6
/// policy.budget = .seconds(30)
/// let outcome = try await layer.applyEdits(edits, options: .init(useGlobalIds: true), retry: policy)
/// print(outcome.attempts.count - 1, "retries")
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// The most attempts in all, the first included; 1 means never retry. Default 5.
    public var maximumAttempts: Int
    /// The backoff ceiling of the first retry. Default 100 ms.
    public var initialBackoff: Duration
    /// The backoff ceiling never exceeds this. Default 10 s.
    public var maximumBackoff: Duration
    /// How much the ceiling grows per retry. Default 2.
    public var multiplier: Double
    /// The total time the operation may take, attempts and sleeps included, before retrying stops. Default 60 s.
    public var budget: Duration
    /// Whether a `Retry-After` header (delta-seconds or HTTP-date) sets the delay. Default true.
    public var honoursRetryAfter: Bool
    /// Seeds the jitter generator (SplitMix64) for reproducible delays in tests; `nil` (the default) draws from
    /// the system generator, so concurrent clients do not retry in lock step.
    public var jitterSeed: UInt64?

    /// A policy with the documented defaults.
    public init(
        maximumAttempts: Int = 5, initialBackoff: Duration = .milliseconds(100), maximumBackoff: Duration = .seconds(10),
        multiplier: Double = 2, budget: Duration = .seconds(60), honoursRetryAfter: Bool = true, jitterSeed: UInt64? = nil
    ) {
        self.maximumAttempts = maximumAttempts
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.multiplier = multiplier
        self.budget = budget
        self.honoursRetryAfter = honoursRetryAfter
        self.jitterSeed = jitterSeed
    }

    /// Never retry: one attempt.
    public static let none = RetryPolicy(maximumAttempts: 1)

    /// What the retry loop does after a failed attempt.
    package enum Decision: Sendable, Hashable {
        /// Sleep `delay`, then send again.
        case retry(after: Duration)
        /// Give up: the failure stands.
        case stop(StopReason)
    }

    /// Why the retry loop gave up.
    public enum StopReason: Sendable, Hashable, CustomStringConvertible {
        /// The failure is not one that a repeat can fix (see ``RetryClassification``).
        case notRetryable
        /// ``RetryPolicy/maximumAttempts`` attempts were made.
        case attemptsExhausted(Int)
        /// The next attempt would start after ``RetryPolicy/budget``; `needed` is the delay that would have been slept.
        case budgetExhausted(budget: Duration, needed: Duration)

        /// The reason as a sentence fragment, such as `gave up after 5 attempts, the policy's maximum`.
        public var description: String {
            switch self {
            case .notRetryable: "did not retry because the failure is not retryable"
            case .attemptsExhausted(let count): "gave up after \(count) attempt\(count == 1 ? "" : "s"), the policy's maximum"
            case .budgetExhausted(let budget, let needed):
                "gave up because waiting \(needed.formattedSeconds) more would exceed the retry budget of \(budget.formattedSeconds)"
            }
        }
    }

    /// The highest backoff before retry `retry` (1-based): `min(maximumBackoff, initialBackoff × multiplier^(retry−1))`.
    package func ceiling(beforeRetry retry: Int) -> Duration {
        guard retry >= 1 else { return .zero }
        let base = initialBackoff.nanoseconds
        let cap = maximumBackoff.nanoseconds
        let grown = Double(base) * power(max(multiplier, 1), retry - 1)
        return .nanoseconds(grown >= Double(cap) ? cap : Int64(grown))
    }

    /// A full-jitter backoff before retry `retry` (1-based): uniform in `0 … ceiling(beforeRetry: retry)`.
    package func backoff(beforeRetry retry: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let ceiling = ceiling(beforeRetry: retry).nanoseconds
        guard ceiling > 0 else { return .zero }
        return .nanoseconds(Int64.random(in: 0...ceiling, using: &generator))
    }

    /// Whether to retry after attempt number `attempt` (1-based) failed with `failure`.
    /// - Parameters:
    ///   - attempt: How many attempts have been made, the failed one included.
    ///   - failure: What went wrong, classified by ``RetryClassification/classify(_:)``.
    ///   - elapsed: Time since the first attempt started.
    ///   - retryAfter: The delay the service asked for (parsed with ``RetryAfter``), if any.
    ///   - generator: The jitter source.
    /// - Returns: Retry after a delay, or stop with the reason.
    package func decide(
        afterAttempt attempt: Int, failure: AttemptFailure, elapsed: Duration, retryAfter: Duration?,
        using generator: inout some RandomNumberGenerator
    ) -> Decision {
        guard case .retryable = RetryClassification.classify(failure) else { return .stop(.notRetryable) }
        guard attempt < maximumAttempts else { return .stop(.attemptsExhausted(attempt)) }
        let delay: Duration
        if honoursRetryAfter, let retryAfter {
            delay = max(retryAfter, .zero)
        } else {
            delay = backoff(beforeRetry: attempt, using: &generator)
        }
        guard elapsed + delay <= budget else { return .stop(.budgetExhausted(budget: budget, needed: delay)) }
        return .retry(after: delay)
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return product + attoseconds / 1_000_000_000
    }

    /// `1.25 s` or `250 ms`, for messages.
    var formattedSeconds: String {
        let nanos = nanoseconds
        if abs(nanos) < 1_000_000_000 { return "\(nanos / 1_000_000) ms" }
        let hundredths = nanos / 10_000_000
        return "\(hundredths / 100).\(String(format2: Int(abs(hundredths) % 100))) s"
    }
}

extension String {
    /// Two digits with a leading zero.
    fileprivate init(format2 value: Int) {
        self = value < 10 ? "0\(value)" : "\(value)"
    }
}

private func power(_ base: Double, _ exponent: Int) -> Double {
    var result = 1.0
    var remaining = exponent
    while remaining > 0 && result < 1e18 {
        result *= base
        remaining -= 1
    }
    return result
}
