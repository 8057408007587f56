import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Testing

@Suite struct RetriedApplyEditsTests {
    let layerURL = Fixtures.serviceURL + "/0"

    static func keyedAdds(_ count: Int, seed: UInt64 = 1) -> [Feature] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { index in
            Feature(attributes: ["name": .string("park \(index)"), "GlobalID": .string(GlobalID.make(using: &generator))])
        }
    }

    static func isApplyEdits(_ request: HTTPRequest) -> Bool { request.path.hasSuffix("/applyEdits") }

    func layer(_ transport: any HTTPTransport, clock: ManualClock) -> FeatureLayerClient {
        FeatureLayerClient(url: layerURL, transport: transport, authentication: nil, clock: clock)
    }

    @Test("503 twice, then success: three attempts, each failure and backoff returned, sleeps on the clock", .timeLimit(.minutes(1)))
    func retriesUnavailable() async throws {
        let service = FakeEditsService()
        let transport = ScriptedFaultTransport(wrapping: service.makeTransport()) { index, _ in index < 2 ? .status(503) : .none }
        let clock = ManualClock()
        let policy = RetryPolicy(jitterSeed: 99)
        let outcome = try await layer(transport, clock: clock).applyEdits(
            LayerEdits(adds: Self.keyedAdds(3)), options: .init(rollbackOnFailure: false, useGlobalIds: true), retry: policy)

        #expect(outcome.adds.map(\.status) == [.applied, .applied, .applied])
        #expect(outcome.attempts.map(\.status) == [503, 503, 200])
        #expect(outcome.attempts.map(\.failure) == [.httpStatus(503), .httpStatus(503), nil])
        #expect(outcome.attempts.retryCount == 2)
        // The delays are the policy's own seeded draws, slept through the injected clock.
        var generator = SplitMix64(seed: 99)
        let expected = [policy.backoff(beforeRetry: 1, using: &generator), policy.backoff(beforeRetry: 2, using: &generator)]
        #expect(clock.sleeps == expected)
        #expect(outcome.attempts.map(\.backoff) == expected + [.zero])
        #expect(outcome.attempts[2].startedAt == expected[0] + expected[1])
        #expect(service.rows.count == 3)
    }

    @Test("a 429 with Retry-After waits exactly as long as asked", .timeLimit(.minutes(1)))
    func honoursRetryAfter() async throws {
        let service = FakeEditsService()
        let transport = ScriptedFaultTransport(wrapping: service.makeTransport()) { index, _ in index == 0 ? .status(429, retryAfter: "7") : .none }
        let clock = ManualClock()
        let outcome = try await layer(transport, clock: clock).applyEdits(LayerEdits(deletes: []), retry: RetryPolicy())
        #expect(clock.sleeps == [.seconds(7)])
        #expect(outcome.attempts.first?.backoff == .seconds(7))
    }

    @Test("an ArcGIS 503 body under HTTP 200 is retried; a 400 body is not", .timeLimit(.minutes(1)))
    func arcgisBodies() async throws {
        let service = FakeEditsService()
        let clock = ManualClock()
        let retried = ScriptedFaultTransport(wrapping: service.makeTransport()) { index, _ in index == 0 ? .arcgisError(503) : .none }
        let outcome = try await layer(retried, clock: clock).applyEdits(LayerEdits(adds: Self.keyedAdds(1)), retry: RetryPolicy())
        #expect(outcome.attempts.map(\.failure) == [.arcgis(code: 503, httpStatus: 200), nil])

        let rejected = ScriptedFaultTransport(wrapping: service.makeTransport()) { _, _ in .arcgisError(400) }
        let error = try await #require(throws: FeatureServiceError.self) {
            try await layer(rejected, clock: clock).applyEdits(LayerEdits(adds: Self.keyedAdds(1, seed: 2)), retry: RetryPolicy())
        }
        #expect(error.attempts.count == 1)
        #expect(error.stopReason == .notRetryable)
        #expect(rejected.requestCount == 1)
        #expect(!error.mayHaveBeenApplied)
    }

    @Test("when the attempts run out the error carries all of them and says so", .timeLimit(.minutes(1)))
    func exhausted() async throws {
        let transport = ScriptedFaultTransport(wrapping: FakeEditsService().makeTransport()) { _, _ in .status(503) }
        let error = try await #require(throws: FeatureServiceError.self) {
            try await layer(transport, clock: ManualClock()).applyEdits(
                LayerEdits(adds: Self.keyedAdds(1)), retry: RetryPolicy(maximumAttempts: 3, jitterSeed: 1))
        }
        #expect(error.attempts.count == 3)
        #expect(error.attempts.allSatisfy { $0.status == 503 })
        #expect(error.stopReason == .attemptsExhausted(3))
        #expect(error.httpStatus == 503)
        #expect(error.description.contains("gave up after 3 attempts"))
        #expect(error.description.contains("applyEdits at \(layerURL)/applyEdits"))
    }

    @Test("a Retry-After beyond the budget stops at once", .timeLimit(.minutes(1)))
    func budget() async throws {
        let transport = ScriptedFaultTransport(wrapping: FakeEditsService().makeTransport()) { _, _ in .status(503, retryAfter: "120") }
        let clock = ManualClock()
        let error = try await #require(throws: FeatureServiceError.self) {
            try await layer(transport, clock: clock).applyEdits(LayerEdits(adds: Self.keyedAdds(1)), retry: RetryPolicy(budget: .seconds(60)))
        }
        #expect(error.stopReason == .budgetExhausted(budget: .seconds(60), needed: .seconds(120)))
        #expect(clock.sleeps.isEmpty)
    }

    @Test(
        "GlobalID adds, rollback off: a dropped answer is replayed, the duplicates recognised and their objectIds looked up", .timeLimit(.minutes(1)))
    func replayKeyedAdds() async throws {
        let service = FakeEditsService()
        let memory = service.makeTransport()
        let transport = ScriptedFaultTransport(wrapping: memory) { index, _ in index == 0 ? .dropAfterSend : .none }
        let adds = Self.keyedAdds(2)
        let outcome = try await layer(transport, clock: ManualClock()).applyEdits(
            LayerEdits(adds: adds), options: .init(rollbackOnFailure: false, useGlobalIds: true), retry: RetryPolicy(jitterSeed: 3))

        #expect(service.rows.count == 2, "applied once, not twice")
        #expect(outcome.adds.map(\.status) == [.appliedByEarlierAttempt, .appliedByEarlierAttempt])
        #expect(outcome.adds.map(\.result?.objectId) == [1, 2])
        #expect(outcome.result.addResults.allSatisfy { $0.success })
        #expect(outcome.attempts.map(\.purpose) == [.request, .request, .verification])
        #expect(outcome.attempts[0].failure == .transport(.receiveFailed, mayHaveBeenSent: true))
        #expect(memory.requests.map(\.path).map { $0.split(separator: "/").last! } == ["applyEdits", "applyEdits", "query"])
    }

    @Test("GlobalID adds, rollback on: after a timeout the client checks the service instead of resending", .timeLimit(.minutes(1)))
    func verifyBeforeResend() async throws {
        let service = FakeEditsService()
        let memory = service.makeTransport()
        let transport = ScriptedFaultTransport(wrapping: memory) { index, _ in index == 0 ? .timeoutAfterSend : .none }
        let outcome = try await layer(transport, clock: ManualClock()).applyEdits(
            LayerEdits(adds: Self.keyedAdds(3)), options: .init(rollbackOnFailure: true, useGlobalIds: true), retry: RetryPolicy())
        #expect(service.rows.count == 3)
        #expect(outcome.adds.allSatisfy { $0.status == .appliedByEarlierAttempt })
        #expect(outcome.adds.map(\.result?.objectId) == [1, 2, 3])
        #expect(memory.requests.filter(Self.isApplyEdits).count == 1, "never resent")
    }

    @Test("GlobalID adds, rollback on: when the check finds nothing the batch is resent", .timeLimit(.minutes(1)))
    func verifiedNotApplied() async throws {
        let service = FakeEditsService()
        let memory = service.makeTransport()
        // The answer is lost and nothing was committed: a 504 from a gateway whose upstream never got the request.
        let transport = ScriptedFaultTransport(wrapping: memory) { index, _ in index == 0 ? .status(504) : .none }
        let outcome = try await layer(transport, clock: ManualClock()).applyEdits(
            LayerEdits(adds: Self.keyedAdds(2)), options: .init(useGlobalIds: true), retry: RetryPolicy())
        #expect(outcome.adds.map(\.status) == [.applied, .applied])
        #expect(outcome.attempts.map(\.purpose) == [.request, .verification, .request])
        #expect(service.rows.count == 2)
    }

    @Test("adds without GlobalIDs are never resent after an ambiguous failure: their outcome is unknown", .timeLimit(.minutes(1)))
    func unkeyedAddsAbandoned() async throws {
        let service = FakeEditsService()
        let memory = service.makeTransport()
        let transport = ScriptedFaultTransport(wrapping: memory) { index, _ in index == 0 ? .dropAfterSend : .none }
        let adds = [Feature(attributes: ["name": "a"]), Feature(attributes: ["name": "b"])]
        let outcome = try await layer(transport, clock: ManualClock()).applyEdits(LayerEdits(adds: adds), retry: RetryPolicy())
        #expect(outcome.adds.map(\.status) == [.outcomeUnknown, .outcomeUnknown])
        #expect(outcome.unknown.first?.reason?.contains("no client-assigned GlobalIDs") == true)
        #expect(memory.requests.count == 1, "not resent")
        #expect(service.rows.count == 2, "the first attempt did apply them: resending would have duplicated them")
    }

    @Test("rollback off: unkeyed adds are abandoned but the deletes go on, and a replayed 1011 counts as applied", .timeLimit(.minutes(1)))
    func unkeyedAddsWithDeletes() async throws {
        let service = FakeEditsService()
        service.seed(["{00000000-0000-4000-8000-00000000AAAA}", "{00000000-0000-4000-8000-00000000BBBB}"])
        let memory = service.makeTransport()
        let transport = ScriptedFaultTransport(wrapping: memory) { index, _ in index == 0 ? .dropAfterSend : .none }
        let outcome = try await layer(transport, clock: ManualClock()).applyEdits(
            LayerEdits(adds: [Feature(attributes: ["name": "a"])], deletes: [1, 2]), options: .init(rollbackOnFailure: false),
            retry: RetryPolicy())
        #expect(outcome.adds.map(\.status) == [.outcomeUnknown])
        #expect(outcome.deletes.map(\.status) == [.appliedByEarlierAttempt, .appliedByEarlierAttempt])
        let replay = try #require(memory.requests.last)
        #expect(replay.formValue("adds") == nil, "the replay carries no adds")
        #expect(replay.formValue("deletes") == "1,2")
    }

    @Test("a connection refused is retried even for unkeyed adds: nothing was sent", .timeLimit(.minutes(1)))
    func refusedIsSafe() async throws {
        let service = FakeEditsService()
        let transport = ScriptedFaultTransport(wrapping: service.makeTransport()) { index, _ in index == 0 ? .refuseConnection : .none }
        let outcome = try await layer(transport, clock: ManualClock()).applyEdits(
            LayerEdits(adds: [Feature(attributes: ["name": "a"])]), retry: RetryPolicy())
        #expect(outcome.adds.map(\.status) == [.applied])
        #expect(outcome.attempts.count == 2)
        #expect(service.rows.count == 1)
    }

    @Test("a 1022 on the first visible attempt counts as applied: the transport itself may have replayed it", .timeLimit(.minutes(1)))
    func firstAttemptDuplicate() async throws {
        let service = FakeEditsService()
        let adds = Self.keyedAdds(1)
        service.seed([adds[0][attribute: "GlobalID"]!.stringValue!])
        let outcome = try await layer(service.makeTransport(), clock: ManualClock()).applyEdits(
            LayerEdits(adds: adds), options: .init(rollbackOnFailure: false, useGlobalIds: true), retry: RetryPolicy())
        #expect(outcome.adds.map(\.status) == [.appliedByEarlierAttempt])
        #expect(outcome.adds.first?.result?.objectId == 1)
        #expect(outcome.attempts.map(\.purpose) == [.request, .verification])
    }

    @Test("a batch rolled back over a duplicate is checked by GlobalID before the failure is reported", .timeLimit(.minutes(1)))
    func rolledBackReplay() async throws {
        let service = FakeEditsService()
        let adds = Self.keyedAdds(2)
        service.seed(adds.map { $0[attribute: "GlobalID"]!.stringValue! })
        let outcome = try await layer(service.makeTransport(), clock: ManualClock()).applyEdits(
            LayerEdits(adds: adds), options: .init(rollbackOnFailure: true, useGlobalIds: true), retry: RetryPolicy())
        #expect(outcome.adds.map(\.status) == [.appliedByEarlierAttempt, .appliedByEarlierAttempt])
        #expect(outcome.adds.map(\.result?.objectId) == [1, 2])

        // Only one of the two present: a real conflict, reported as the service's error.
        let partial = FakeEditsService()
        partial.seed([adds[0][attribute: "GlobalID"]!.stringValue!])
        let error = try await #require(throws: FeatureServiceError.self) {
            try await layer(partial.makeTransport(), clock: ManualClock()).applyEdits(
                LayerEdits(adds: adds), options: .init(rollbackOnFailure: true, useGlobalIds: true), retry: RetryPolicy())
        }
        #expect(error.arcgisError?.code == 400)
        #expect(error.attempts.map(\.purpose) == [.request, .verification])
    }

    @Test("cancellation during a backoff sleep ends the call", .timeLimit(.minutes(1)))
    func cancellation() async throws {
        let clock = ManualClock(advancesWhenSleeping: false)
        let transport = ScriptedFaultTransport(wrapping: FakeEditsService().makeTransport()) { _, _ in .status(503) }
        let layer = layer(transport, clock: clock)
        let task = Task { try await layer.applyEdits(LayerEdits(adds: Self.keyedAdds(1)), retry: RetryPolicy()) }
        for _ in 0..<1000 where clock.waitingSleepers == 0 { await Task.yield() }
        #expect(clock.waitingSleepers == 1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(transport.requestCount == 1)
    }
}
