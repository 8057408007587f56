import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Testing

@testable import LoadRunner

/// The runner's own look-ups (metadata, counts, verification queries) retry as the client's requests do: the
/// service's `Retry-After` sets the delay, and no retry starts past the policy's budget, timed on the runner's clock.
@Suite struct LookupRetryTests {
    /// The in-memory service of ``ScenarioRunnerTests`` behind `fault`, which chooses what the index-th request meets.
    static func transport(
        _ service: ScenarioRunnerTests.FakeService, fault: @escaping ScriptedFaultTransport.Decision
    ) -> ScriptedFaultTransport {
        ScriptedFaultTransport(wrapping: InMemoryTransport { request in try service.handle(request) }, decide: fault)
    }

    static func isServiceMetadata(_ request: HTTPRequest) -> Bool { request.path.hasSuffix("/FeatureServer") }
    static func isQuery(_ request: HTTPRequest) -> Bool { request.path.hasSuffix("/0/query") }

    static func runner(_ plan: ScenarioPlan, transport: some HTTPTransport, clock: ManualClock) -> ScenarioRunner<ManualClock> {
        ScenarioRunner(
            plan: plan, planFile: "fake.yaml", connection: ServiceConnection(url: ScenarioRunnerTests.serviceURL, transport: transport),
            target: RunReport.TargetInfo(kind: "live", serviceURL: ScenarioRunnerTests.serviceURL), clock: clock, toolVersion: "test")
    }

    @Test("the metadata load waits out a 503's Retry-After on the runner's clock, then goes on", .timeLimit(.minutes(1)))
    func metadataHonoursRetryAfter() async throws {
        let transport = Self.transport(ScenarioRunnerTests.FakeService()) { index, request in
            index == 0 && Self.isServiceMetadata(request) ? .status(503, retryAfter: "7") : .none
        }
        let clock = ManualClock()
        // A plan on a layer the service lacks: the run stops at the plan check, right after the metadata was read.
        let error = await #expect(throws: LoadRunnerError.self) {
            try await Self.runner(ScenarioRunnerTests.plan(layer: 5), transport: transport, clock: clock).run()
        }
        #expect(error?.description.contains("no layer or table with id 5") == true, "\(String(describing: error))")
        #expect(clock.sleeps == [.seconds(7)])
        #expect(transport.injectedFaults == [.status(503, retryAfter: "7")])
    }

    @Test("a Retry-After beyond the budget ends the metadata load at once, with the reason", .timeLimit(.minutes(1)))
    func metadataBudget() async throws {
        let transport = Self.transport(ScenarioRunnerTests.FakeService()) { _, request in
            Self.isServiceMetadata(request) ? .status(503, retryAfter: "45") : .none
        }
        let clock = ManualClock()
        // No scenario sets a retry: the support policy's budget is 30 s.
        let error = await #expect(throws: LoadRunnerError.self) {
            try await Self.runner(ScenarioRunnerTests.plan(), transport: transport, clock: clock).run()
        }
        let text = error?.description ?? ""
        #expect(text.contains("could not load the feature service") && text.contains("retry budget of 30"), "\(text)")
        #expect(clock.sleeps.isEmpty)
        #expect(transport.requestCount == 1)
    }

    @Test(
        "the metadata load follows the first scenario's retry settings: its budget allows a long Retry-After, its attempts end it",
        .timeLimit(.minutes(1)))
    func metadataScenarioPolicy() async throws {
        let transport = Self.transport(ScenarioRunnerTests.FakeService()) { _, request in
            Self.isServiceMetadata(request) ? .status(429, retryAfter: "45") : .none
        }
        let clock = ManualClock()
        var plan = ScenarioRunnerTests.plan()
        plan.scenarios[0].retry = ScenarioSpec.Retry(maxAttempts: 2, budget: .seconds(120))
        let error = await #expect(throws: LoadRunnerError.self) {
            try await Self.runner(plan, transport: transport, clock: clock).run()
        }
        #expect(error?.description.contains("gave up after 2 attempts") == true, "\(String(describing: error))")
        #expect(clock.sleeps == [.seconds(45)])
        #expect(transport.requestCount == 2)
    }

    /// A verifier of layer 0 over `transport`, timed on `clock`.
    static func verify(transport: some HTTPTransport, policy: RetryPolicy, clock: ManualClock) async -> ScenarioVerification {
        let service = FeatureService(url: ScenarioRunnerTests.serviceURL, transport: transport)
        let verifier = Verifier(service: service, layers: [:], policy: policy, clock: clock)
        let recorded = ScenarioRecorder(scenario: "single", operations: ["applyEdits"], layers: [0], keepIds: true).snapshot()
        return await verifier.verify(ScenarioSpec(name: "single", vus: 1, iterations: 1), recorded: recorded, countsBefore: [0: 3])
    }

    @Test("the verification's count waits out a 429's Retry-After, then checks the layer", .timeLimit(.minutes(1)))
    func verificationHonoursRetryAfter() async throws {
        let transport = Self.transport(ScenarioRunnerTests.FakeService()) { index, request in
            index == 0 && Self.isQuery(request) ? .status(429, retryAfter: "2") : .none
        }
        let clock = ManualClock()
        let verification = await Self.verify(transport: transport, policy: RetryPolicy(maximumAttempts: 3, budget: .seconds(30)), clock: clock)
        #expect(verification.passed, "\(verification.notes)")
        #expect(verification.layerCountAfter == 3)
        #expect(clock.sleeps == [.seconds(2)])
    }

    @Test("a verification count the service keeps refusing past the budget becomes a note naming the budget", .timeLimit(.minutes(1)))
    func verificationBudget() async throws {
        let transport = Self.transport(ScenarioRunnerTests.FakeService()) { _, request in
            Self.isQuery(request) ? .status(503, retryAfter: "20") : .none
        }
        let clock = ManualClock()
        let verification = await Self.verify(transport: transport, policy: RetryPolicy(maximumAttempts: 10, budget: .seconds(30)), clock: clock)
        #expect(!verification.passed)
        #expect(
            verification.notes.contains { $0.contains("verification could not finish") && $0.contains("retry budget of 30") },
            "\(verification.notes)")
        #expect(clock.sleeps == [.seconds(20)], "20 s fits the budget once; a second 20 s would end at 40 s")
        #expect(transport.requestCount == 2)
    }
}
