import FeatureModel
import FeatureServiceClient
import Testing

@Suite struct RetryPolicyTests {
    @Test("the backoff ceiling doubles from 100 ms and is capped at 10 s")
    func ceilings() {
        let policy = RetryPolicy()
        let ceilings = (1...9).map { policy.ceiling(beforeRetry: $0) }
        #expect(
            ceilings == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600),
                .milliseconds(3200), .milliseconds(6400), .seconds(10), .seconds(10),
            ])
        #expect(policy.ceiling(beforeRetry: 500) == .seconds(10), "no overflow far out")
        #expect(policy.ceiling(beforeRetry: 0) == .zero)
    }

    @Test("full jitter draws within 0…ceiling, reproducibly for a seed")
    func jitter() {
        let policy = RetryPolicy()
        var first = SplitMix64(seed: 42)
        var second = SplitMix64(seed: 42)
        let a = (1...8).map { policy.backoff(beforeRetry: $0, using: &first) }
        let b = (1...8).map { policy.backoff(beforeRetry: $0, using: &second) }
        #expect(a == b)
        for (index, delay) in a.enumerated() {
            #expect(delay >= .zero && delay <= policy.ceiling(beforeRetry: index + 1))
        }
        // Full jitter spreads over the whole range: over many draws both halves of the range are hit.
        var generator = SplitMix64(seed: 7)
        let draws = (0..<1000).map { _ in policy.backoff(beforeRetry: 4, using: &generator) }
        #expect(draws.contains { $0 < .milliseconds(100) })
        #expect(draws.contains { $0 > .milliseconds(700) })
        #expect(Set(draws).count > 900, "delays are not quantised")
    }

    @Test("a retryable failure is retried after a jittered delay until the attempts run out")
    func attemptsExhausted() {
        let policy = RetryPolicy(maximumAttempts: 3)
        var generator = SplitMix64(seed: 1)
        let failure = AttemptFailure.httpStatus(503)
        guard case .retry(let first) = policy.decide(afterAttempt: 1, failure: failure, elapsed: .zero, retryAfter: nil, using: &generator)
        else {
            Issue.record("expected a retry")
            return
        }
        #expect(first <= .milliseconds(100))
        guard case .retry(let second) = policy.decide(afterAttempt: 2, failure: failure, elapsed: .zero, retryAfter: nil, using: &generator)
        else {
            Issue.record("expected a retry")
            return
        }
        #expect(second <= .milliseconds(200))
        #expect(policy.decide(afterAttempt: 3, failure: failure, elapsed: .zero, retryAfter: nil, using: &generator) == .stop(.attemptsExhausted(3)))
    }

    @Test("a non-retryable failure stops at once")
    func notRetryable() {
        var generator = SplitMix64(seed: 1)
        let decision = RetryPolicy().decide(
            afterAttempt: 1, failure: .arcgis(code: 400, httpStatus: 200), elapsed: .zero, retryAfter: nil, using: &generator)
        #expect(decision == .stop(.notRetryable))
    }

    @Test("Retry-After replaces the jittered delay, and the budget stops a wait that would overrun it")
    func retryAfterAndBudget() {
        let policy = RetryPolicy(budget: .seconds(10))
        var generator = SplitMix64(seed: 1)
        let throttled = AttemptFailure.httpStatus(429)
        #expect(
            policy.decide(afterAttempt: 1, failure: throttled, elapsed: .seconds(1), retryAfter: .seconds(3), using: &generator)
                == .retry(after: .seconds(3)))
        #expect(
            policy.decide(afterAttempt: 1, failure: throttled, elapsed: .seconds(8), retryAfter: .seconds(3), using: &generator)
                == .stop(.budgetExhausted(budget: .seconds(10), needed: .seconds(3))))
        var ignoring = policy
        ignoring.honoursRetryAfter = false
        guard
            case .retry(let delay) = ignoring.decide(afterAttempt: 1, failure: throttled, elapsed: .zero, retryAfter: .seconds(30), using: &generator)
        else {
            Issue.record("expected a retry")
            return
        }
        #expect(delay <= .milliseconds(100))
    }

    @Test("RetryPolicy.none makes one attempt")
    func none() {
        var generator = SplitMix64(seed: 1)
        #expect(
            RetryPolicy.none.decide(afterAttempt: 1, failure: .httpStatus(503), elapsed: .zero, retryAfter: nil, using: &generator)
                == .stop(.attemptsExhausted(1)))
    }
}

@Suite struct RetryAfterTests {
    @Test("delta-seconds", arguments: [("0", 0), ("120", 120), (" 5 ", 5)])
    func deltaSeconds(text: String, seconds: Int64) {
        #expect(RetryAfter.delay(text) == .seconds(seconds))
    }

    @Test("HTTP-dates in all three forms, against the response's Date header")
    func httpDates() {
        let date = "Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(RetryAfter.httpDate(date) == 784_111_777)
        #expect(RetryAfter.httpDate("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
        #expect(RetryAfter.httpDate("Sun Nov  6 08:49:37 1994") == 784_111_777)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:50:07 GMT", responseDate: date) == .seconds(30))
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:50:07 GMT", now: 784_111_777) == .seconds(30), "the wall clock when there is no Date header")
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:40:00 GMT", responseDate: date) == .zero, "a past date means now")
        #expect(RetryAfter.httpDate("Thu, 29 Feb 2024 23:59:60 GMT") == 1_709_251_200, "leap day and leap second")
    }

    @Test("malformed values are ignored", arguments: ["", "soon", "-5", "1.5", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 32 Nov 1994 08:49:37 GMT"])
    func malformed(text: String) {
        #expect(RetryAfter.delay(text, now: 0) == nil)
    }

    @Test("an HTTP-date without any reference time is ignored")
    func noReference() {
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT") == nil)
    }
}
