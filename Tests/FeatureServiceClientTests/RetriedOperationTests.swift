import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Synchronization
import Testing

/// ``RetryPolicy/retrying(on:_:)``: an idempotent operation of one or more requests, repeated as the policy decides.
@Suite struct RetriedOperationTests {
    static let layerURL = Fixtures.serviceURL + "/0"

    /// A layer whose count query answers `fault(index)` for the index-th request, else a count of 3; it times its
    /// attempts on `clock` (the one the retries sleep on), so their start times add up with the sleeps.
    static func layer(
        on clock: ManualClock, _ fault: @escaping @Sendable (Int) -> ScriptedFaultTransport.Fault
    ) -> (FeatureLayerClient, ScriptedFaultTransport) {
        let counting = InMemoryTransport { _ in .json(#"{"count":3}"#) }
        let transport = ScriptedFaultTransport(wrapping: counting) { index, _ in fault(index) }
        return (FeatureLayerClient(url: layerURL, transport: transport, authentication: nil, clock: clock), transport)
    }

    @Test("a 503 with Retry-After: the operation runs again after exactly the delay asked for, slept on the injected clock", .timeLimit(.minutes(1)))
    func honoursRetryAfter() async throws {
        let clock = ManualClock()
        let (layer, transport) = Self.layer(on: clock) { $0 == 0 ? .status(503, retryAfter: "7") : .none }
        let count = try await RetryPolicy().retrying(on: clock) { try await layer.count() }
        #expect(count == 3)
        #expect(clock.sleeps == [.seconds(7)])
        #expect(transport.requestCount == 2)
    }

    @Test("a Retry-After beyond the budget stops at once, with the reason, without sleeping", .timeLimit(.minutes(1)))
    func budgetStops() async throws {
        let clock = ManualClock()
        let (layer, transport) = Self.layer(on: clock) { _ in .status(429, retryAfter: "120") }
        let error = try await #require(throws: FeatureServiceError.self) {
            try await RetryPolicy(budget: .seconds(30)).retrying(on: clock) { try await layer.count() }
        }
        #expect(error.stopReason == .budgetExhausted(budget: .seconds(30), needed: .seconds(120)))
        #expect(clock.sleeps.isEmpty)
        #expect(transport.requestCount == 1)
        #expect(error.description.contains("retry budget of 30"), "\(error)")
    }

    @Test("the budget counts the time already spent: sleeps that add up past it end the retries", .timeLimit(.minutes(1)))
    func budgetAccumulates() async throws {
        let clock = ManualClock()
        let (layer, transport) = Self.layer(on: clock) { _ in .status(503, retryAfter: "4") }
        let error = try await #require(throws: FeatureServiceError.self) {
            try await RetryPolicy(maximumAttempts: 10, budget: .seconds(10)).retrying(on: clock) { try await layer.count() }
        }
        #expect(clock.sleeps == [.seconds(4), .seconds(4)])
        #expect(transport.requestCount == 3)
        #expect(error.stopReason == .budgetExhausted(budget: .seconds(10), needed: .seconds(4)))
    }

    @Test("without Retry-After the delays are the policy's full-jitter draws; the error carries every run's attempts", .timeLimit(.minutes(1)))
    func jitteredUntilExhausted() async throws {
        let clock = ManualClock()
        let (layer, _) = Self.layer(on: clock) { _ in .status(503) }
        let policy = RetryPolicy(maximumAttempts: 3, jitterSeed: 11)
        let error = try await #require(throws: FeatureServiceError.self) {
            try await policy.retrying(on: clock) { try await layer.count() }
        }
        var generator = SplitMix64(seed: 11)
        let expected = [policy.backoff(beforeRetry: 1, using: &generator), policy.backoff(beforeRetry: 2, using: &generator)]
        #expect(clock.sleeps == expected)
        #expect(error.stopReason == .attemptsExhausted(3))
        #expect(error.attempts.map(\.number) == [1, 2, 3])
        #expect(error.attempts.map(\.status) == [503, 503, 503])
        #expect(error.attempts.map(\.backoff) == expected + [.zero])
        #expect(error.attempts.map(\.startedAt) == [.zero, expected[0], expected[0] + expected[1]])
    }

    @Test("a failure a repeat cannot fix, or an error that is not the service's, is not repeated", .timeLimit(.minutes(1)))
    func notRetried() async throws {
        let clock = ManualClock()
        let (layer, transport) = Self.layer(on: clock) { _ in .arcgisError(400) }
        let error = try await #require(throws: FeatureServiceError.self) {
            try await RetryPolicy().retrying(on: clock) { try await layer.count() }
        }
        #expect(error.stopReason == .notRetryable)
        #expect(transport.requestCount == 1)

        struct Unrelated: Error {}
        let runs = Mutex(0)
        await #expect(throws: Unrelated.self) {
            try await RetryPolicy().retrying(on: clock) { () async throws -> Int in
                runs.withLock { $0 += 1 }
                throw Unrelated()
            }
        }
        #expect(runs.withLock { $0 } == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test("an operation of several requests is repeated whole, and what it returns comes back", .timeLimit(.minutes(1)))
    func wholeOperation() async throws {
        let clock = ManualClock()
        let (layer, transport) = Self.layer(on: clock) { $0 == 1 ? .refuseConnection : .none }
        let sum = try await RetryPolicy(jitterSeed: 3).retrying(on: clock) {
            try await layer.count() + layer.count(where: "1=1")
        }
        #expect(sum == 6)
        #expect(transport.requestCount == 4)
        #expect(clock.sleeps.count == 1)
    }
}
