/// The one retry loop of the package: run the work; after each ``FeatureServiceError`` it throws, ask the caller's
/// decision what to do (retry after a delay, or stop), sleep the delay through the caller's clock, and run it again;
/// on stop, throw the error as the decision left it. Errors of other types (`CancellationError` among them) end the
/// loop at once.
///
/// Every retried operation runs on it: a request under its ``RetryPolicy`` (``FeatureServiceExchange``), an
/// idempotent operation of several requests (``RetryPolicy/retrying(on:_:)``), an exactly-once applyEdits' look-ups,
/// and a batch applier waiting for a service that cannot be reached. What differs between them, and only that, is
/// their decision: what they count as an attempt, what they record, and what they throw when they give up.
package enum RetryDriver {
    /// What the loop does after a failed run.
    package enum Step: Sendable, Hashable {
        /// Sleep this long, then run again.
        case retry(after: Duration)
        /// Give up: the error stands.
        case stop
    }

    /// Runs `body` until it succeeds or `decide` stops.
    /// - Parameters:
    ///   - body: The work; it must be safe to repeat.
    ///   - decide: Given the failure (to annotate in place) and how many runs have failed so far (1 after the first),
    ///     what to do; it may throw an error of its own instead.
    ///   - sleep: Sleeps a delay `decide` asked for (and records it, where the caller keeps a record).
    /// - Returns: What the successful run returned.
    /// - Throws: The last ``FeatureServiceError`` once `decide` stops; what `decide`, `body` or `sleep` throw otherwise.
    package static func run<T>(
        _ body: () async throws -> T, decide: (_ failure: inout FeatureServiceError, _ failures: Int) throws -> Step,
        sleep: (Duration) async throws -> Void
    ) async throws -> T {
        var failures = 0
        while true {
            do {
                return try await body()
            } catch var error as FeatureServiceError {
                failures += 1
                guard case .retry(let delay) = try decide(&error, failures) else { throw error }
                try await sleep(delay)
            }
        }
    }
}

extension RetryPolicy.Decision {
    /// The decision as the retry loop's step, noting a stop's reason in `failure` unless it holds one already.
    func step(annotating failure: inout FeatureServiceError) -> RetryDriver.Step {
        switch self {
        case .retry(let delay): return .retry(after: delay)
        case .stop(let reason):
            if failure.stopReason == nil { failure.stopReason = reason }
            return .stop
        }
    }
}
