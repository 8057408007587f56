import FeatureModel
import FeatureServiceClient
import Foundation
import LoadRunner
import LocalFeatureServer
import Logging
import Testing

/// The runner over the real libcurl transport against the real local service on 127.0.0.1, port 0.
@Suite struct RunnerIntegrationTests {
    static func run(
        _ yaml: String, dataset: String = "parks", rows: Int? = nil, faults: LocalFeatureServerConfiguration.Faults = .init()
    ) async throws -> RunReport {
        let plan = try ScenarioParser.parse(yaml: yaml, file: "test.yaml")
        var configuration = LocalFeatureServerConfiguration(dataset: dataset)
        configuration.generatedRows = rows
        configuration.faults = faults
        var logger = Logger(label: "test")
        logger.logLevel = .error
        return try await withLocalFeatureServer(configuration, logger: logger) { endpoint in
            try await withCurlTransport(configuration: CurlTransportConfiguration(maxConnections: 32)) { transport in
                let url = endpoint.serviceURL(dataset)
                let runner = ScenarioRunner(
                    plan: plan, planFile: "test.yaml", connection: ServiceConnection(url: url, transport: transport),
                    target: RunReport.TargetInfo(kind: "local", serviceURL: url), clock: ContinuousClock(), toolVersion: "test")
                return try await runner.run()
            }
        }
    }

    static func plan(_ scenarios: String, thresholds: String = "") -> String {
        "version: 2\nname: it\ntarget: local\nseed: 11\n" + thresholds + "scenarios:\n" + scenarios
    }

    @Test("applyEdits, addAttachment and queryRelatedRecords run concurrently in one scenario, each under its own tag", .timeLimit(.minutes(2)))
    func parallelMix() async throws {
        // 20 ms on every answer, so each iteration is busy for at least that long and overlap shows in the sums.
        let faults = LocalFeatureServerConfiguration.Faults(latency: FaultLatency(.fixed(milliseconds: 20)))
        let report = try await Self.run(
            Self.plan(
                """
                  mixed:
                    executor: shared-iterations
                    vus: 6
                    iterations: 90
                    setup: { seed: 30 }
                    mix:
                      - { operation: applyEdits, weight: 3, adds: 4, updates: 1 }
                      - { operation: addAttachment, weight: 1, size: 16KB }
                      - { operation: queryRelatedRecords, weight: 2, relationship: 0 }
                """), faults: faults)
        #expect(report.verdict.passed, "\(report.verdict.failures)")
        let view = try #require(report.views.first)
        #expect(view.iterations == 90)
        // Overlap, by counting: when the iterations' busy time adds up to more than twice the scenario's wall time,
        // at some instant at least three iterations were in flight together.
        let busy = view.iterationLatency.mean * Double(view.iterations)
        let wall = view.record.durationSeconds * 1000
        let overlap = "iterations busy \(busy) ms in \(wall) ms of wall time"
        #expect(busy > 2 * wall, Comment(rawValue: overlap))
        let byLabel = Dictionary(uniqueKeysWithValues: view.operations.map { ($0.label, $0) })
        for label in ["applyEdits", "addAttachment", "queryRelatedRecords"] {
            let op = try #require(byLabel[label], "\(label)")
            #expect(op.requests > 0, "\(label)")
            #expect(op.failedRequests == 0, "\(label)")
        }
        #expect(byLabel["applyEdits"]!.editsApplied == byLabel["applyEdits"]!.iterations * 5)
        #expect(byLabel["addAttachment"]!.editsApplied == byLabel["addAttachment"]!.iterations)
        #expect(view.operations.reduce(0) { $0 + $1.iterations } == 90)
        #expect(view.record.verification?.passed == true)
        // Each operation's requests are tagged with it.
        #expect(
            report.metrics.filter { $0.metric == .httpReqs }.allSatisfy {
                ["applyEdits", "addAttachment", "queryRelatedRecords"].contains($0.tags["operation"] ?? "")
            })
        #expect(report.timeSeries.contains { $0.operation == "addAttachment" && $0.requests > 0 })
        // The per-second series knows how much of each second the scenario ran, so charts show rates, not a dip
        // in the partial first and last seconds.
        let seconds = report.seconds(of: "mixed")
        #expect(seconds.allSatisfy { $0.coverage > 0 && $0.coverage <= 1 })
        // Each second's share is its overlap with the scenario (a second in which nothing finished has no bucket).
        let start = view.record.startSeconds
        let end = start + view.record.durationSeconds
        for second in seconds {
            let overlap = min(Double(second.second + 1), end) - max(Double(second.second), start)
            #expect(abs(second.coverage - min(1, max(0, overlap))) < 1e-9)
        }
        #expect(seconds.reduce(0) { $0 + $1.coverage } <= view.record.durationSeconds + 1e-9)
        if let last = seconds.last, last.coverage < 1, last.coverage >= 0.1 {
            #expect(last.rate(last.requests) == Double(last.requests) / last.coverage)
        }
    }

    @Test(
        "every operation runs against the dataset it needs",
        .timeLimit(.minutes(3)),
        arguments: [
            ("parks", "exec: applyEdits\n    adds: 3\n    updates: 2\n    deletes: 1\n    setup: { seed: 40 }"),
            ("parks", "exec: addFeatures\n    batchSize: 5\n    clientGlobalIds: true"),
            ("parks", "exec: updateFeatures\n    batchSize: 3\n    setup: { seed: 20 }"),
            ("parks", "exec: deleteFeatures\n    batchSize: 2\n    setup: { seed: 60 }"),
            ("parks", "exec: query\n    where: \"OBJECTID > 0\"\n    pageSize: 7"),
            ("parks", "exec: query\n    returnCountOnly: true\n    envelope: 0.5"),
            ("parks", "exec: query\n    returnIdsOnly: true\n    where: \"OBJECTID = {objectId}\""),
            ("parks", "exec: addAttachment\n    size: { min: 70KB, max: 200KB }\n    uploadThreshold: 64KB"),
            ("parks", "exec: queryAttachments\n    download: true\n    setup: { seed: 5 }"),
            ("servicerequests", "exec: queryRelatedRecords\n    layer: 1\n    relationship: 0"),
            ("servicerequests", "exec: queryRelatedRecords\n    relationship: 0\n    batchSize: 3"),
            ("ownerscars", "exec: queryRelatedRecords\n    relationship: 0"),
            ("supplierproducts", "exec: queryRelatedRecords\n    relationship: 0\n    pageSize: 2"),
            ("servicerequests", "exec: relate\n    layer: 1\n    relationship: 0\n    validate: false"),
            ("servicerequests", "exec: relate\n    layer: 1\n    relationship: 0\n    action: move"),
            ("supplierproducts", "exec: relate\n    relationship: 0"),
            ("parks", "exec: deepInsert\n    relationship: 0\n    children: 3\n    attachments: 1\n    size: 8KB"),
            ("servicerequests", "exec: deepInsert\n    relationship: 0\n    children: 2"),
        ])
    func everyOperation(dataset: String, settings: String) async throws {
        let report = try await Self.run(
            Self.plan("  one:\n    executor: per-vu-iterations\n    vus: 2\n    iterations: 6\n    " + settings), dataset: dataset, rows: 30)
        #expect(report.verdict.passed, "\(dataset) \(settings): \(report.verdict.failures) \(report.scenarios.first?.errors ?? [:])")
        let view = try #require(report.views.first)
        #expect(view.iterations == 12)
        #expect(view.requests >= 12)
        #expect(view.failedRequests == 0)
        if settings.contains("deepInsert") || settings.contains("relate") {
            #expect(view.editsFailed == 0, "\(report.scenarios.first?.errors ?? [:])")
            let perIteration = settings.contains("children: 3") ? 5 : settings.contains("children: 2") ? 3 : 1
            #expect(view.editsApplied == 12 * perIteration)
        }
        if settings.contains("deepInsert") {
            // Verification found every parent and every child in its own table.
            let children = settings.contains("children: 3") ? 3 : 2
            let verification = try #require(report.scenarios.first?.verification)
            #expect(verification.passed && verification.reportedAdded == 12 * (1 + children) && verification.foundByObjectId == 12 * (1 + children))
        }
    }

    @Test("relate validates first: a second parent for a one-to-many child is refused unsent; unrelate nulls the key", .timeLimit(.minutes(2)))
    func relateValidation() async throws {
        let relate = try await Self.run(
            Self.plan("  r:\n    executor: shared-iterations\n    vus: 2\n    iterations: 10\n    exec: relate\n    layer: 1\n    relationship: 0"),
            dataset: "servicerequests", rows: 30)
        let view = try #require(relate.views.first)
        #expect(view.failedRequests == 0)
        #expect(view.editsApplied + view.editsInvalid == 10)
        #expect(view.editsFailed == 0)
        let errors = relate.scenarios.first?.errors ?? [:]
        // Every generated comment already has its request: relating it to another is a cardinality violation, not sent.
        #expect(view.editsInvalid > 0)
        #expect(errors.keys.allSatisfy { $0 == "not sent: cardinality violation of relationship 0 'Request_Comments'" }, "\(errors)")

        let unrelate = try await Self.run(
            Self.plan(
                "  u:\n    executor: shared-iterations\n    vus: 1\n    iterations: 6\n    exec: relate\n    layer: 1\n    relationship: 0\n    action: unrelate"
            ),
            dataset: "customerorders", rows: 30)
        let unrelated = try #require(unrelate.views.first)
        #expect(unrelated.failedRequests == 0)
        #expect(unrelated.editsApplied > 0)
        #expect(unrelated.editsApplied + unrelated.editsInvalid == 6)
        #expect(unrelated.editsFailed == 0)
        // The only refusals are orders that had no customer to begin with (guest orders keep a null key).
        #expect((unrelate.scenarios.first?.errors ?? [:]).keys.allSatisfy { $0.contains("had no related feature to unrelate") })
    }

    @Test("contingent values: adds follow them; invalidRate breaks that share, which validation refuses unsent", .timeLimit(.minutes(2)))
    func contingentValues() async throws {
        let report = try await Self.run(
            Self.plan(
                "  nests:\n    executor: shared-iterations\n    vus: 2\n    iterations: 20\n    exec: applyEdits\n    adds: 10\n    invalidRate: 0.2"),
            dataset: "birdnests")
        let view = try #require(report.views.first)
        #expect(view.failedRequests == 0)
        #expect(view.editsFailed == 0)
        #expect(view.editsApplied + view.editsInvalid == 200)
        // About a fifth, drawn per add from the seed.
        #expect((20...60).contains(view.editsInvalid), "\(view.editsInvalid) invalid")
        #expect(report.aggregate(.editsInvalid)?.count == Double(view.editsInvalid))
        #expect((report.scenarios.first?.errors ?? [:]).keys.allSatisfy { $0.hasPrefix("not sent: no contingent value of restrictive field group") })
        #expect(view.record.verification?.passed == true)
    }

    @Test("a stalled server ends the scenario at maxDuration + gracefulStop, not when the requests give up", .timeLimit(.minutes(1)))
    func stalledServerHardStop() async throws {
        // A 10-minute stall: a run that waited it out (or a server stop that did) could not end within the time limit.
        let faults = LocalFeatureServerConfiguration.Faults(rules: [
            FaultRule(kind: .stall, rate: 1, scope: FaultScope(operation: "applyEdits"), stallSeconds: 600)
        ])
        let clock = ContinuousClock()
        let start = clock.now
        let report = try await Self.run(
            Self.plan("  stuck:\n    executor: shared-iterations\n    vus: 2\n    iterations: 10\n    maxDuration: 1s\n    gracefulStop: 1s"),
            faults: faults)
        let elapsed = start.duration(to: clock.now)
        // The scenario itself: 1 s and the 1 s grace, far from the 600 s stall; the bound is one only waiting the stall
        // out could cross (a machine busy with stress-ng and the parallel suites took 12 s here).
        let scenario = try #require(report.scenarios.first)
        #expect(scenario.durationSeconds < 120, "the scenario took \(scenario.durationSeconds) s")
        #expect(scenario.stopReason == .gracefulStop)
        // The requests the hard stop cut off are in the report, not lost.
        #expect((report.views.first?.cutOffRequests ?? 0) > 0)
        // And the whole run, server stop included, never waits out the stall (600 s; slack for a loaded machine).
        #expect(elapsed < .seconds(55), "took \(elapsed)")
    }

    @Test("an impossible threshold fails the run and names itself", .timeLimit(.minutes(1)))
    func thresholdsGate() async throws {
        let report = try await Self.run(
            Self.plan(
                "  w:\n    executor: shared-iterations\n    vus: 2\n    iterations: 20\n",
                thresholds: "thresholds:\n  \"http_req_duration{scenario:w}\": [\"p(95)<0.001\"]\n  http_reqs: [\"count>=20\"]\n"))
        #expect(!report.verdict.passed)
        #expect(report.verdict.failures.contains { $0.contains("http_req_duration{scenario:w}") && $0.contains("p(95)<0.001") })
        #expect(report.thresholds.count == 2)
        #expect(report.thresholds.first { $0.key == "http_reqs" }?.passed == true)
    }

    @Test(
        "abortOnFail stops the run at the first failing evaluation; the scenario that never started is a failed JUnit case, not a gap",
        .timeLimit(.minutes(1)))
    func neverStarted() async throws {
        let yaml = """
            version: 1
            name: it
            target: local
            thresholds:
              "http_reqs{scenario:first}": [{ threshold: "count<1", abortOnFail: true }]
            scenarios:
              first: { executor: constant-vus, vus: 1, duration: 30s }
              second: { executor: shared-iterations, vus: 1, iterations: 5 }
            """
        let report = try await Self.run(yaml)
        #expect(report.scenarios.map(\.name) == ["first"], "the abort stops the run before the second scenario")
        // Timed from the scenario's own start (in the parallel test phase start-up alone can wait for a pool thread):
        // the first evaluation comes after about a second, far from the 30 s the scenario would run.
        let first = try #require(report.scenarios.first)
        #expect(first.stopReason == .cancelled && first.durationSeconds < 20, "\(first.stopReason) after \(first.durationSeconds) s")
        #expect(
            !report.verdict.passed && report.verdict.failures.first?.hasPrefix("aborted: threshold http_reqs{scenario:first}: count<1") == true,
            "\(report.verdict.failures)")
        #expect(report.plan.scenarioNames == ["first", "second"])
        let junit = JUnitRenderer.render(report)
        #expect(junit.contains(#"<testsuite name="second" tests="1" failures="1""#), "\(junit)")
        #expect(junit.contains("never started"))
    }
}
