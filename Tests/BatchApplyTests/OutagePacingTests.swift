import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Testing

@testable import BatchApply

/// How long the applier waits between tries while the service cannot be reached: its retry policy's ceilings (1 s,
/// doubling, capped at the probe interval), the last pause cut short at the end of the wait; on a manual clock.
@Suite struct OutagePacingTests {
    static let serviceURL = "http://fake.invalid/arcgis/rest/services/parks/FeatureServer"

    /// A service whose every request meets `fault(index)`, else answers a count of 3.
    static func service(_ fault: @escaping @Sendable (Int) -> ScriptedFaultTransport.Fault) -> (FeatureService, ScriptedFaultTransport) {
        let transport = ScriptedFaultTransport(wrapping: InMemoryTransport { _ in .json(#"{"count":3}"#) }) { index, _ in fault(index) }
        return (FeatureService(url: serviceURL, transport: transport), transport)
    }

    @Test("the pacing is a retry policy: 1 s, doubling to the probe interval, for the wait, as many tries as fit")
    func pacingPolicy() {
        let pacing = BatchApplier.outagePacing(wait: .seconds(10), probeInterval: .seconds(4))
        #expect(pacing.initialBackoff == .seconds(1) && pacing.multiplier == 2 && pacing.maximumBackoff == .seconds(4))
        #expect(pacing.budget == .seconds(10) && pacing.maximumAttempts == .max)
        #expect(BatchApplier.pause(pacing, beforeRetry: 1, elapsed: .zero) == .seconds(1))
        #expect(BatchApplier.pause(pacing, beforeRetry: 2, elapsed: .seconds(1)) == .seconds(2))
        #expect(BatchApplier.pause(pacing, beforeRetry: 3, elapsed: .seconds(3)) == .seconds(4))
        #expect(BatchApplier.pause(pacing, beforeRetry: 4, elapsed: .seconds(7)) == .seconds(3), "cut short at the end of the wait")
        #expect(BatchApplier.pause(pacing, beforeRetry: 5, elapsed: .seconds(10)) == nil)
        let quick = BatchApplier.outagePacing(wait: .seconds(10), probeInterval: .milliseconds(200))
        #expect(BatchApplier.pause(quick, beforeRetry: 1, elapsed: .zero) == .milliseconds(200), "a probe interval under 1 s caps the first pause")
    }

    @Test("waiting for the service: tries at 0, 1, 3, 7 and 10 s, then stops with how long and why", .timeLimit(.minutes(1)))
    func waitsThenGivesUp() async throws {
        let (service, transport) = Self.service { _ in .status(503) }
        let clock = ManualClock()
        let error = try await #require(throws: ApplyError.self) {
            try await BatchApplier.waitingForService(.seconds(10), probeInterval: .seconds(4), clock: clock) {
                try await service.layer(id: 0).count()
            }
        }
        #expect("\(error)" == "the service could not be reached for 10 s (HTTP 503)")
        #expect(clock.sleeps == [.seconds(1), .seconds(2), .seconds(4), .seconds(3)])
        #expect(transport.requestCount == 5)
    }

    @Test("waiting for the service ends as soon as it answers; a refusal, or no wait, ends it at once", .timeLimit(.minutes(1)))
    func answersAndRefusals() async throws {
        let (recovering, _) = Self.service { $0 < 2 ? .refuseConnection : .none }
        let clock = ManualClock()
        let count = try await BatchApplier.waitingForService(.seconds(60), clock: clock) { try await recovering.layer(id: 0).count() }
        #expect(count == 3)
        #expect(clock.sleeps == [.seconds(1), .seconds(2)])

        let (refusing, refused) = Self.service { _ in .arcgisError(400) }
        await #expect(throws: FeatureServiceError.self) {
            try await BatchApplier.waitingForService(.seconds(60), clock: clock) { try await refusing.layer(id: 0).count() }
        }
        let (down, tried) = Self.service { _ in .status(503) }
        await #expect(throws: FeatureServiceError.self) {
            try await BatchApplier.waitingForService(.zero, clock: clock) { try await down.layer(id: 0).count() }
        }
        #expect(refused.requestCount == 1 && tried.requestCount == 1)
        #expect(clock.sleeps.count == 2)
    }
}
