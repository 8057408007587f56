import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Synchronization
import Testing

@testable import LoadRunner

/// The runner over an in-memory feature service whose misbehaviour each test chooses.
@Suite struct ScenarioRunnerTests {
    static let serviceURL = "http://fake.invalid/arcgis/rest/services/parks/FeatureServer"

    /// A feature service that keeps rows in memory and can fail edits, lose them, or drop answers.
    final class FakeService: Sendable {
        struct State {
            var rows: Set<Int64> = [1, 2, 3]
            var nextObjectId: Int64 = 100
            var addsSeen = 0
            var requestsSeen = 0
        }
        let state = Mutex(State())
        /// Every n-th add fails with code 1001 (0 = never).
        let failEveryAdd: Int
        /// Every n-th add is reported as applied but not stored (0 = never).
        let loseEveryAdd: Int
        /// Every n-th applyEdits request is applied, then the connection drops (0 = never).
        let dropEveryRequest: Int
        /// Every n-th applyEdits request is refused whole with an HTTP 400 error envelope, nothing applied (0 = never).
        let refuseEveryRequest: Int

        init(failEveryAdd: Int = 0, loseEveryAdd: Int = 0, dropEveryRequest: Int = 0, refuseEveryRequest: Int = 0) {
            self.failEveryAdd = failEveryAdd
            self.loseEveryAdd = loseEveryAdd
            self.dropEveryRequest = dropEveryRequest
            self.refuseEveryRequest = refuseEveryRequest
        }

        var rowCount: Int { state.withLock { $0.rows.count } }

        func handle(_ request: HTTPRequest) throws -> HTTPResponse {
            let path = request.path
            if path.hasSuffix("/FeatureServer") {
                return try .json(
                    encoding: ServiceInfo(serviceDescription: "fake", layers: [LayerSummary(id: 0, name: "Parks")], tables: []))
            }
            if path.hasSuffix("/FeatureServer/0") { return try .json(encoding: PacingAndMetricsTests.layer) }
            if path.hasSuffix("/0/query") {
                let ids = request.formValue("objectIds").map { $0.split(separator: ",").compactMap { Int64($0) } }
                let count = state.withLock { state in ids.map { $0.filter(state.rows.contains).count } ?? state.rows.count }
                return try .json(encoding: CountResult(count: count))
            }
            if path.hasSuffix("/0/applyEdits") {
                let number = state.withLock { state in
                    state.requestsSeen += 1
                    return state.requestsSeen
                }
                if refuseEveryRequest > 0 && number % refuseEveryRequest == 0 {
                    return .json(#"{"error":{"code":400,"message":"Unable to complete operation.","details":[]}}"#, status: 400)
                }
                let adds = try WireJSON.decode([Feature].self, from: request.formValue("adds") ?? "[]")
                let (results, drop) = state.withLock { state -> ([EditResult], Bool) in
                    let results = adds.map { _ -> EditResult in
                        state.addsSeen += 1
                        if failEveryAdd > 0, state.addsSeen % failEveryAdd == 0 {
                            return .failure(objectId: -1, code: 1001, description: "Field name is not nullable.")
                        }
                        state.nextObjectId += 1
                        if loseEveryAdd == 0 || state.addsSeen % loseEveryAdd != 0 { state.rows.insert(state.nextObjectId) }
                        return EditResult(objectId: state.nextObjectId, success: true)
                    }
                    return (results, dropEveryRequest > 0 && number % dropEveryRequest == 0)
                }
                if drop {
                    throw TransportError(.receiveFailed, url: request.url, curlCode: 56, message: "connection reset", mayHaveBeenSent: true)
                }
                return try .json(encoding: ApplyEditsResult(addResults: results))
            }
            return .json(#"{"error":{"code":404,"message":"not found","details":[]}}"#)
        }
    }

    static func plan(single: Int = 40, batch: Int = 10, maxFailedEditRate: Double = 0, minRatio: Double? = nil, layer: Int = 0) -> ScenarioPlan {
        ScenarioPlan(
            name: "fake", target: .url(serviceURL), seed: 9,
            scenarios: [
                ScenarioSpec(name: "single", vus: 4, iterations: single, layer: layer, batchSize: 1),
                ScenarioSpec(name: "batched", vus: 4, iterations: single / batch, layer: layer, batchSize: batch),
            ],
            comparisons: [.init(baseline: "single", candidate: "batched", minRatio: minRatio)],
            maxFailedEditRate: maxFailedEditRate)
    }

    static func run(_ plan: ScenarioPlan, service: FakeService) async throws -> RunReport {
        let transport = InMemoryTransport { request in try service.handle(request) }
        let runner = ScenarioRunner(
            plan: plan, planFile: "fake.yaml", connection: ServiceConnection(url: serviceURL, transport: transport),
            target: RunReport.TargetInfo(kind: "live", serviceURL: serviceURL), clock: ContinuousClock(), toolVersion: "test")
        return try await runner.run()
    }

    @Test("a clean run counts every request and edit and verifies every add", .timeLimit(.minutes(1)))
    func cleanRun() async throws {
        let service = FakeService()
        let report = try await Self.run(Self.plan(), service: service)
        #expect(report.verdict.passed, "\(report.verdict.failures)")
        #expect(report.views.map(\.requests) == [40, 4])
        #expect(report.views.map(\.iterations) == [40, 4])
        for scenario in report.views {
            #expect(scenario.editsApplied == 40)
            #expect(report.aggregate(.httpReqDuration, filter: ["scenario": scenario.name])?.histogram?.count == UInt64(scenario.requests))
            #expect(scenario.record.stopReason == .iterationsDone)
            #expect(scenario.record.verification?.passed == true)
            #expect(scenario.record.verification?.foundByObjectId == 40)
        }
        #expect(service.rowCount == 83)
        #expect(report.comparisons.count == 1)
    }

    @Test("per-edit failures are counted and fail the run unless the rate allows them", .timeLimit(.minutes(1)))
    func perEditFailures() async throws {
        let strict = try await Self.run(Self.plan(), service: FakeService(failEveryAdd: 10))
        #expect(!strict.verdict.passed)
        #expect(strict.views.map(\.editsFailed) == [4, 4])
        #expect(strict.scenarios[0].errors.keys.contains { $0.contains("code 1001") })
        #expect(strict.scenarios.allSatisfy { $0.verification?.passed == true })

        let lenient = try await Self.run(Self.plan(maxFailedEditRate: 0.1), service: FakeService(failEveryAdd: 10))
        #expect(lenient.verdict.passed, "\(lenient.verdict.failures)")
    }

    @Test(
        "failed requests fail the run by the implicit gate, whatever the edits allow, unless maxFailedRequestRate allows them",
        .timeLimit(.minutes(1)))
    func failedRequestGate() async throws {
        var plan = Self.plan(maxFailedEditRate: 1)
        plan.comparisons = []
        let strict = try await Self.run(plan, service: FakeService(refuseEveryRequest: 4))
        #expect(!strict.verdict.passed)
        let single = try #require(strict.views.first)
        #expect(single.requests == 40 && single.failedRequests == 10, "\(strict.verdict.failures)")
        #expect(strict.verdict.failures.contains("single: 10 of 40 requests failed (25 %), above the allowed 1 % (maxFailedRequestRate)"))
        #expect(strict.plan.gates.summary.contains("failed requests ≤ 1 % (maxFailedRequestRate)"))

        plan.maxFailedRequestRate = 0.5
        let lenient = try await Self.run(plan, service: FakeService(refuseEveryRequest: 4))
        #expect(lenient.verdict.passed, "\(lenient.verdict.failures)")
        plan.maxFailedRequestRate = 1
        let off = try await Self.run(plan, service: FakeService(refuseEveryRequest: 1))
        #expect(off.verdict.passed && off.views.allSatisfy { $0.requests == $0.failedRequests }, "\(off.verdict.failures)")
        #expect(off.plan.gates.summary.contains("no failed-request gate"))
    }

    @Test("an add the service reports but does not hold fails verification", .timeLimit(.minutes(1)))
    func lostEdit() async throws {
        let report = try await Self.run(Self.plan(), service: FakeService(loseEveryAdd: 25))
        #expect(!report.verdict.passed)
        let verification = try #require(report.scenarios[0].verification)
        #expect(!verification.passed)
        #expect(verification.foundByObjectId == verification.reportedAdded - 1)
        #expect(verification.notes.contains { $0.contains("missing from the service") })
    }

    @Test("a request applied but unanswered is a failed request and shows in verification", .timeLimit(.minutes(1)))
    func droppedAnswer() async throws {
        let report = try await Self.run(Self.plan(), service: FakeService(dropEveryRequest: 8))
        let single = report.views[0]
        #expect(single.failedRequests == 5)
        #expect(single.editsFailed == 5)
        let verification = try #require(single.record.verification)
        #expect(!verification.passed)
        #expect((verification.layerCountAfter ?? 0) - (verification.layerCountBefore ?? 0) == 40)
        #expect(verification.notes.contains { $0.contains("may have been applied") })
        #expect(!report.verdict.passed)
    }

    @Test("a scenario on a layer the service lacks stops the run with the service's layers named", .timeLimit(.minutes(1)))
    func missingLayer() async throws {
        let error = await #expect(throws: LoadRunnerError.self) {
            try await Self.run(Self.plan(layer: 5), service: FakeService())
        }
        #expect(error?.description.contains("no layer or table with id 5") == true)
        #expect(error?.description.contains("0 (Parks)") == true)
    }

    @Test("comparisons give the candidate/baseline ratio and gate on the minimum")
    func comparisons() {
        func view(_ name: String, editsPerSecond: Double) -> ScenarioView {
            let record = ScenarioRecord(
                name: name, executor: "shared-iterations", settings: [:], operations: [], tags: [:], startSeconds: 0, durationSeconds: 1,
                stopReason: .iterationsDone, verification: nil, warnings: [])
            return ScenarioView(
                name: name, record: record, requests: 1, failedRequests: 0, iterations: 1, droppedIterations: 0, editsApplied: Int(editsPerSecond),
                editsFailed: 0, editsUnknown: 0, editsInvalid: 0, retries: 0, latency: LatencySummary(LatencyHistogram()),
                iterationLatency: LatencySummary(LatencyHistogram()), requestsPerSecond: 1, editsPerSecond: editsPerSecond, operations: [])
        }
        let views = [view("a", editsPerSecond: 100), view("b", editsPerSecond: 1250)]
        let gated = ReportAssembly.compare([.init(baseline: "a", candidate: "b", minRatio: 10)], views: views)
        #expect(gated.first?.ratio == 12.5)
        #expect(gated.first?.passed == true)
        let failing = ReportAssembly.compare([.init(baseline: "a", candidate: "b", minRatio: 20)], views: views)
        #expect(failing.first?.passed == false)
    }

    /// A serial executor on a thread of its own, named so a task can tell it runs there.
    final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
        private let queue = Mutex<[UnownedJob]>([])
        private let thread = Mutex<pthread_t?>(nil)

        /// Whether the calling thread is the executor's.
        var isCurrent: Bool { thread.withLock { $0 }.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        private let ready = DispatchSemaphore(value: 0)

        init() {
            Thread { [self] in
                // Known by the thread itself before it runs a job (a name set through Foundation's `Thread.name` here
                // could miss a thread that starts before its creator has recorded it, as it did under load).
                thread.withLock { $0 = pthread_self() }
                while true {
                    ready.wait()
                    guard let job = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
                    job.runSynchronously(on: asUnownedTaskExecutor())
                }
            }.start()
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.withLock { $0.append(job) }
            ready.signal()
        }
    }

    /// A transport that offers an executor and notes, for each applyEdits request, whether it was sent from there.
    final class ExecutorTransport: HTTPTransport {
        let inner: InMemoryTransport
        let executor: ThreadExecutor
        let sentFromExecutor = Mutex<[Bool]>([])

        init(inner: InMemoryTransport, executor: ThreadExecutor) {
            self.inner = inner
            self.executor = executor
        }

        var taskExecutor: (any TaskExecutor)? { executor }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            if request.url.hasSuffix("/applyEdits") {
                let onExecutor = executor.isCurrent
                sentFromExecutor.withLock { $0.append(onExecutor) }
            }
            return try await inner.send(request)
        }
    }

    @Test("VUs run on the transport's executor when it offers one: every applyEdits request is sent from there", .timeLimit(.minutes(1)))
    func vusRunOnTransportExecutor() async throws {
        let service = FakeService()
        let transport = ExecutorTransport(inner: InMemoryTransport { request in try service.handle(request) }, executor: ThreadExecutor())
        let runner = ScenarioRunner(
            plan: Self.plan(), planFile: "fake.yaml", connection: ServiceConnection(url: Self.serviceURL, transport: transport),
            target: RunReport.TargetInfo(kind: "live", serviceURL: Self.serviceURL), clock: ContinuousClock(), toolVersion: "test")
        let report = try await runner.run()
        #expect(report.verdict.passed, "\(report.verdict.failures)")
        #expect(report.views.map(\.requests) == [40, 4])
        let onExecutor = transport.sentFromExecutor.withLock { $0 }
        #expect(onExecutor.count == 44)
        #expect(onExecutor.allSatisfy { $0 })
    }

    @Test("only iterations that do little but wait on their request run on the driver thread: edits of at most 100 features")
    func whatFitsTheDriverThread() {
        var adds = OperationSpec(.applyEdits(ApplyEditsSettings(adds: 100)))
        #expect(adds.fitsDriverThread)
        adds.settings = .applyEdits(ApplyEditsSettings(adds: 101))
        #expect(!adds.fitsDriverThread, "writing 1,000 features would hold every other VU's response")
        let updates = OperationSpec(.updateFeatures(UpdateFeaturesSettings(batchSize: 10)))
        #expect(updates.fitsDriverThread)
        for kind: OperationSpec.Kind in [.query, .queryRelatedRecords, .addAttachment, .queryAttachments, .relate, .deepInsert] {
            #expect(!OperationSpec(kind: kind).fitsDriverThread, "\(kind) reads pages or files")
        }
    }
}
