import FeatureModel
import FeatureServiceClient
import Foundation
import LoadRunner
import LocalFeatureServer
import Logging
import Testing

/// Scenarios with retries against the real local service with injected faults, over libcurl.
@Suite struct RetriedScenarioTests {
    static func run(_ spec: ScenarioSpec, faults: [FaultRule]) async throws -> RunReport {
        var configuration = LocalFeatureServerConfiguration()
        configuration.faults = LocalFeatureServerConfiguration.Faults(seed: 7, rules: faults)
        var plan = ScenarioPlan(name: "faults", target: .local(dataset: "parks"), seed: 5, scenarios: [spec])
        // The injected faults fail a third of the attempts on purpose; the retries recover them, and the edits'
        // gates and verification judge the outcome, so the failed-request gate is turned off as a file would.
        plan.maxFailedRequestRate = 1
        let planned = plan
        return try await withLocalFeatureServer(configuration, logger: Logger(label: "test")) { endpoint in
            try await withCurlTransport(configuration: CurlTransportConfiguration(maxConnections: 8)) { transport in
                let url = endpoint.serviceURL("parks")
                let runner = ScenarioRunner(
                    plan: planned, planFile: "faults.yaml", connection: ServiceConnection(url: url, transport: transport),
                    target: RunReport.TargetInfo(kind: "local", serviceURL: url), clock: ContinuousClock(), toolVersion: "test")
                return try await runner.run()
            }
        }
    }

    /// Faults hit the edits; metadata and the verification queries are left alone.
    static let edits = FaultScope(operation: "applyEdits")

    static let retry = ScenarioSpec.Retry(
        maxAttempts: 12, initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(20), budget: .seconds(30))

    @Test("with client GlobalIDs and retries, every add lands exactly once under 503s, 429s and drops after commit", .timeLimit(.minutes(2)))
    func exactlyOnceUnderFaults() async throws {
        let spec = ScenarioSpec(
            name: "adds", vus: 4, iterations: 120, batchSize: 5, retry: Self.retry, clientGlobalIds: true)
        let report = try await Self.run(
            spec,
            faults: [
                FaultRule(kind: .http503, rate: 0.15, scope: Self.edits),
                FaultRule(kind: .http429, rate: 0.1, scope: Self.edits, retryAfterSeconds: 0),
                FaultRule(kind: .dropAfterCommit, rate: 0.1, scope: Self.edits),
                FaultRule(kind: .dropBeforeHandler, rate: 0.05, scope: Self.edits),
            ])
        let result = try #require(report.views.first)
        #expect(report.verdict.passed, "\(report.verdict.failures)")
        #expect(result.editsApplied == 600)
        #expect(result.editsFailed == 0)
        #expect(result.editsUnknown == 0)
        #expect(result.retries > 0)
        #expect(result.requests > result.iterations)
        let verification = try #require(result.record.verification)
        #expect(verification.passed, "\(verification.notes)")
        #expect(verification.duplicateObjectIds == 0)
        #expect((verification.layerCountAfter ?? 0) - (verification.layerCountBefore ?? 0) == 600)
        #expect(verification.globalIdsFound == 600)
    }

    @Test("without client GlobalIDs a drop after commit is reported as an unknown outcome, never silently resent", .timeLimit(.minutes(2)))
    func unknownWithoutGlobalIds() async throws {
        let spec = ScenarioSpec(name: "adds", vus: 2, iterations: 60, batchSize: 2, retry: Self.retry)
        let report = try await Self.run(spec, faults: [FaultRule(kind: .dropAfterCommit, rate: 0.2, scope: Self.edits)])
        let result = try #require(report.views.first)
        #expect(result.editsUnknown > 0)
        #expect(result.editsApplied + result.editsFailed == 120)
        #expect(!report.verdict.passed)
        #expect(result.record.errors.keys.contains { $0.contains("outcome unknown") || $0.contains("may have") })
        // Never resent: one request per iteration, no retry, and the service holds each add once (every dropped
        // answer was committed first).
        #expect(result.retries == 0)
        #expect(result.requests == result.iterations)
        let verification = try #require(result.record.verification)
        #expect((verification.layerCountAfter ?? 0) - (verification.layerCountBefore ?? 0) == 120)
    }

    @Test("retry settings and clientGlobalIds are read from the scenario file, with positioned errors")
    func parsing() throws {
        let yaml = """
            version: 2
            name: r
            target: local
            scenarios:
              a:
                executor: shared-iterations
                iterations: 10
                clientGlobalIds: true
                retry:
                  maxAttempts: 4
                  initialBackoff: 50ms
                  maxBackoff: 2s
                  budget: 20s
              b:
                executor: shared-iterations
                iterations: 10
                retry:
                  maxAttempts: 0
                  maxBackof: 1s
            """
        let error = #expect(throws: ScenarioFileError.self) { try ScenarioParser.parse(yaml: yaml, file: "r.yaml") }
        let fields = Set(error?.issues.map(\.field) ?? [])
        #expect(fields == ["scenarios.b.retry.maxAttempts", "scenarios.b.retry.maxBackof"])
        let valid = try ScenarioParser.parse(yaml: yaml.components(separatedBy: "  b:")[0], file: "r.yaml")
        var clientGlobalIds = false
        if case .applyEdits(let edits) = valid.scenarios[0].operations[0].settings { clientGlobalIds = edits.clientGlobalIds }
        #expect(clientGlobalIds)
        #expect(
            valid.scenarios[0].retry
                == ScenarioSpec.Retry(maxAttempts: 4, initialBackoff: .milliseconds(50), maxBackoff: .seconds(2), budget: .seconds(20)))
    }
}
