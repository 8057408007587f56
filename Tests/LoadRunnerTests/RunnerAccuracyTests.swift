import FeatureModel
import FeatureServiceClient
import Foundation
import LoadRunner
import LocalFeatureServer
import Testing

/// How true the runner's figures are, against the real local service over libcurl.
///
/// Latency figures are only as good as the machine is quiet, so `scripts/test` runs this suite on its own, after the
/// parallel run.
@Suite(.serialized) struct RunnerAccuracyTests {
    /// The client's time contains the service's, so its p50 can never be below the service's (bar the histograms'
    /// 1 % precision) and only the client's own share lies above it. On a quiet machine that share is under 5 %; on a
    /// loaded one the scheduler adds milliseconds, so the upper bound is 20 %: far above noise, far below what a
    /// measuring bug (a wrong unit, a time that includes queueing or the whole iteration) would add to 50 ms.
    @Test(
        "with 50 ms injected on every query, the reported p50 of http_req_duration holds the server's time plus the client's share only",
        .timeLimit(.minutes(2)))
    func clientLatencyContainsServerTime() async throws {
        let faults = LocalFeatureServerConfiguration.Faults(latency: FaultLatency(.fixed(milliseconds: 50), scope: FaultScope(operation: "query")))
        let report = try await RunnerIntegrationTests.run(
            RunnerIntegrationTests.plan(
                "  reads:\n    executor: constant-vus\n    vus: 4\n    duration: 2s\n    exec: query\n    returnCountOnly: true"), faults: faults)
        let view = try #require(report.views.first)
        #expect(view.requests > 50)
        // The service's own time, from its Server-Timing header: the 50 ms plus its handling of the query.
        let server = try #require(report.aggregate(.serverDuration)?.histogram)
        #expect(server.count == UInt64(view.requests))
        let serverP50 = Double(server.percentile(50)) / 1000
        #expect(serverP50 >= 50)
        let figures = "client p50 \(view.latency.p50) ms, server p50 \(serverP50) ms"
        #expect(view.latency.p50 >= serverP50 * 0.99, Comment(rawValue: figures))
        #expect(view.latency.p50 <= serverP50 * 1.2, Comment(rawValue: figures))
    }

    @Test("a 1 s stall under constant-arrival-rate shows in p99 and the iterations that could not start are counted", .timeLimit(.minutes(2)))
    func stallShowsInP99() async throws {
        let faults = LocalFeatureServerConfiguration.Faults(
            // One VU at 40 iterations/s: a stalled query holds it for 1 s, so the ~40 iterations due meanwhile cannot start.
            seed: 3, rules: [FaultRule(kind: .stall, rate: 0.05, scope: FaultScope(operation: "query"), stallSeconds: 1)])
        let report = try await RunnerIntegrationTests.run(
            RunnerIntegrationTests.plan(
                """
                  open:
                    executor: constant-arrival-rate
                    rate: 40
                    duration: 3s
                    preAllocatedVUs: 1
                    maxVUs: 1
                    exec: query
                    returnCountOnly: true
                """), faults: faults)
        let view = try #require(report.views.first)
        #expect(view.latency.p99 >= 990, "p99 \(view.latency.p99)")
        #expect(view.iterationLatency.p99 >= 990)
        #expect(view.droppedIterations > 0)
        #expect(view.iterations + view.droppedIterations == 120)
        #expect(report.notes.contains { $0.contains("Little's law") })
    }
}
