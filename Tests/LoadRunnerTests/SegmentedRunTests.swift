import FeatureModel
import FeatureServiceClient
import Foundation
import LocalFeatureServer
import Logging
import Synchronization
import Testing

@testable import LoadRunner

/// Records every applyEdits request's duration, as the runner measures it (libcurl's total time), in one histogram
/// shared by all generators: the samples in one place.
final class TimingTap: HTTPTransport {
    let inner: any HTTPTransport
    let histogram = Mutex(LatencyHistogram())

    init(_ inner: any HTTPTransport) {
        self.inner = inner
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await inner.send(request)
        if request.url.hasSuffix("/applyEdits"), let total = response.timing?.total {
            histogram.withLock { $0.record(total) }
        }
        return response
    }
}

/// Execution segments applied to the executors, and four generators running one test between them (serial in
/// scripts/test: an open-model schedule is only kept on a machine that is not running other suites).
struct SegmentedRunTests {
    static let quarters = "0,1/4,2/4,3/4,1"

    static func tuples(_ sequence: String) throws -> [ExecutionTuple] {
        let parsed = try ExecutionSegmentSequence(parsing: sequence)
        return try parsed.segments.map { try ExecutionTuple(segment: $0, sequence: parsed) }
    }

    @Test("every executor's VUs, iterations and arrivals are shared out whole: the segments' shares add up and their numbers never meet")
    func shares() throws {
        let tuples = try Self.tuples("0,1/10,3/10,1/2,1")
        let executors: [ExecutorConfig] = [
            .sharedIterations(SharedIterations(vus: 7, iterations: 103)), .perVUIterations(PerVUIterations(vus: 9, iterations: 4)),
            .constantVUs(ConstantVUs(vus: 13, duration: .seconds(5))),
            .rampingVUs(RampingVUs(startVUs: 3, stages: [Stage(duration: .seconds(2), target: 11), Stage(duration: .seconds(2), target: 0)])),
            .constantArrivalRate(ConstantArrivalRate(rate: 37, duration: .seconds(3), preAllocatedVUs: 5, maxVUs: 9)),
            .rampingArrivalRate(RampingArrivalRate(startRate: 0, stages: [Stage(duration: .seconds(2), target: 40)], preAllocatedVUs: 4, maxVUs: 6)),
        ]
        for executor in executors {
            let shares = tuples.map { SegmentedExecutor(executor, segment: $0) }
            #expect(shares.map { $0.vuTasks ?? $0.executor.maxVUs }.reduce(0, +) == executor.maxVUs, "\(executor.name): the VUs add up")
            if case .rampingVUs(let c) = executor {
                // At every moment of the ramps the segments' active VUs add up to the whole test's.
                let stages = VUStages(start: c.startVUs, stages: c.stages)
                for tenth in 0..<40 {
                    let t = Duration.milliseconds(100 * tenth)
                    let active = shares.map { share in (0..<(share.vuTasks ?? 0)).count { stages.vus(at: t) > share.vuNumbering.global($0) } }
                    #expect(active.reduce(0, +) == stages.vus(at: t), "ramping-vus at \(t): \(active)")
                }
            }
            let planned: Int? =
                switch executor {
                case .sharedIterations(let c): c.iterations
                case .constantArrivalRate, .rampingArrivalRate: OpenSchedule(executor)?.plannedIterations
                default: nil
                }
            guard let planned else { continue }
            var numbers: [Int] = []
            for share in shares {
                guard let numbering = share.numbering else { continue }
                let count: Int =
                    switch share.executor {
                    case .sharedIterations(let c): c.iterations
                    default: numbering.scale(planned)
                    }
                numbers += (0..<count).map(numbering.global)
            }
            #expect(numbers.sorted() == Array(0..<planned), "\(executor.name): each of the \(planned) iterations on exactly one generator")
        }
    }

    @Test(
        "four generators run a constant-arrival-rate write test as quarters against one local service: their iterations add up to the whole test's exactly, every feature is written once, each verifies",
        .timeLimit(.minutes(2)))
    func fourGenerators() async throws {
        let yaml = """
            version: 2
            name: quarters
            target: local
            seed: 5
            scenarios:
              arrivals:
                executor: constant-arrival-rate
                rate: 120
                duration: 3s
                preAllocatedVUs: 16
                maxVUs: 64
                exec: applyEdits
                adds: 2
                clientGlobalIds: true
            """
        let plan = try ScenarioParser.parse(yaml: yaml, file: "quarters.yaml")
        let planned = try #require(OpenSchedule(plan.scenarios[0].executor)).plannedIterations
        var logger = Logger(label: "test")
        logger.logLevel = .error
        try await withLocalFeatureServer(LocalFeatureServerConfiguration(dataset: "parks"), logger: logger) { endpoint in
            try await withCurlTransport(configuration: CurlTransportConfiguration(maxConnections: 64)) { curl in
                let transport = TimingTap(curl)
                let url = endpoint.serviceURL("parks")
                let layer = FeatureLayerClient(url: url + "/0", transport: transport)
                let before = try await layer.count()
                let reports = try await withThrowingTaskGroup(of: RunReport.self) { group in
                    for tuple in try Self.tuples(Self.quarters) {
                        group.addTask {
                            var runner = ScenarioRunner(
                                plan: plan, planFile: "quarters.yaml", connection: ServiceConnection(url: url, transport: transport),
                                target: RunReport.TargetInfo(kind: "local", serviceURL: url), clock: ContinuousClock(), toolVersion: "test")
                            runner.segment = tuple
                            return try await runner.run()
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(Set(reports.map(\.segment)) == ["0:1/4", "1/4:1/2", "1/2:3/4", "3/4:1"])
                #expect(reports.allSatisfy { $0.segmentSequence == "0,1/4,1/2,3/4,1" })
                for report in reports { #expect(report.verdict.passed, "\(report.segment): \(report.verdict.failures)") }
                let dropped = reports.map { $0.views.first?.droppedIterations ?? 0 }
                #expect(dropped.allSatisfy { $0 == 0 }, "no generator ran out of VUs: \(dropped) dropped")
                let iterations = reports.map { $0.views.first?.iterations ?? 0 }
                #expect(iterations.reduce(0, +) == planned, "the quarters ran \(iterations), the whole test plans \(planned)")
                #expect(iterations.allSatisfy { $0 == planned / 4 }, "\(iterations)")
                let added = try await layer.count() - before
                #expect(added == planned * 2, "every feature written once")
                let features = try await layer.queryAll(
                    FeatureQuery(whereClause: "1=1", outFields: ["GlobalID"], returnGeometry: false), pageSize: 5000)
                let globalIds = features.compactMap { $0[attribute: "GlobalID"]?.stringValue }
                #expect(Set(globalIds).count == globalIds.count, "no GlobalID written twice")

                // Merged, the quarters give one report of the whole test, whose latency histogram is exactly the one
                // recorded in one place.
                let merged = try ReportMerge.merge(reports.map { ("\($0.segment)", $0) })
                #expect(merged.verdict.passed, "\(merged.verdict.failures)")
                #expect(merged.segment == "0:1")
                let view = try #require(merged.views.first)
                #expect(view.iterations == planned && view.editsApplied == planned * 2)
                // Achieved: iterations over the time the quarters ran together, from the first start to the last end.
                // That span is at least the 3 s each ran and at most 3 s plus the 1 s by which starts may differ before
                // the merge flags them (a loaded machine starts tasks late): never above 120/s, never below 90/s. A
                // merge that summed the quarters' times (30/s) or took one quarter's iterations (30/s) is far outside.
                let rate = Double(view.iterations) / view.record.durationSeconds
                let achieved = "achieved \(rate)/s of 120/s over \(view.record.durationSeconds) s"
                #expect(rate <= 120 * 1.005 && rate >= 90, Comment(rawValue: achieved))
                let mergedHistogram = try #require(merged.aggregate(.httpReqDuration)?.histogram)
                let oneplace = transport.histogram.withLock { $0 }
                #expect(mergedHistogram.count == UInt64(planned))
                #expect(mergedHistogram.recorded == oneplace.recorded, "merged bucket by bucket, nothing rounded")
                #expect(mergedHistogram.percentile(99) == oneplace.percentile(99))
            }
        }
    }
}
