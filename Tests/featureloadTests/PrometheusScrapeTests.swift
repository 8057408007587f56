import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// A real Prometheus scraping a run's `--metrics-listen` endpoint every second, queried with PromQL after the run:
/// its counts equal report.json's, its percentiles agree within a bucket, and every panel of the Grafana dashboard in
/// deploy/grafana returns data. One 20 s run serves both tests.
@Suite(
    .enabled(
        if: LocalPrometheus.executable != nil,
        "Debian's prometheus package is not installed here, so no real Prometheus can scrape a run: scripts/install-deps --test installs it"))
struct PrometheusScrapeTests {
    /// What the run reported, and what Prometheus answered about it.
    struct Observation: Sendable {
        var report: RunReport
        var output: String
        /// When the last scrape of the finished run was taken, and the time range the run's samples span.
        var lastScrape: Double
        var firstScrape: Double
        var requestsIncrease: [LocalPrometheus.Series]
        var medianEstimate: [LocalPrometheus.Series]
        var firstRequestValues: [LocalPrometheus.Series]
        /// `up` and `scrape_duration_seconds` over the run: whether each scrape worked, and how long it took.
        var scrapes: [LocalPrometheus.Series]
        /// Each dashboard panel's title and its queries' answers over the run.
        var panels: [(title: String, expression: String, answer: [LocalPrometheus.Series])]
        var runIds: [String]
    }

    static let runId = "prometheus-\(UInt32.random(in: 0...UInt32.max))"
    static let observed = Task { try await observe() }

    @Test(
        "sum(increase(featureload_http_reqs_total[1h])) equals report.json's requests exactly, and histogram_quantile(0.5) is within the report's p50 bucket",
        .timeLimit(.minutes(4)))
    func countsAndPercentilesAgree() async throws {
        let observed = try await Self.observed.value
        let comment = Comment(rawValue: observed.output)
        let requests = try #require(observed.report.aggregate(.httpReqs)?.count)
        #expect(requests > 100, comment)
        // Every series was scraped at zero before the load began, so increase() counts every request.
        let first = (observed.firstRequestValues + observed.scrapes).map { "\($0)" }.joined(separator: "\n")
        #expect(
            !observed.firstRequestValues.isEmpty && observed.firstRequestValues.allSatisfy { $0.values.first?.value == 0 }, Comment(rawValue: first))
        let increase = try #require(observed.requestsIncrease.first?.values.first?.value, comment)
        #expect(abs(increase - requests) < 1e-6, Comment(rawValue: "increase \(increase), report \(requests)\n\(observed.output)"))

        let histogram = try #require(observed.report.aggregate(.httpReqDuration)?.histogram)
        let p50 = Double(histogram.percentile(50)) / 1_000_000
        let estimate = try #require(observed.medianEstimate.first?.values.first?.value, comment)
        let bounds = [0] + LiveMetricName.durationBuckets.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
        let upper = try #require(bounds.firstIndex { $0 >= p50 }, Comment(rawValue: "p50 \(p50) s is beyond the last bucket"))
        let width = bounds[upper] - bounds[max(0, upper - 1)]
        #expect(
            abs(estimate - p50) <= width, Comment(rawValue: "histogram_quantile(0.5) \(estimate) s, report p50 \(p50) s, bucket width \(width) s"))
    }

    @Test("every panel of deploy/grafana/featureload.json returns data for the run, and its run_id variable lists the run", .timeLimit(.minutes(4)))
    func everyDashboardPanelHasData() async throws {
        let observed = try await Self.observed.value
        #expect(observed.panels.count >= 15)
        for panel in observed.panels {
            let answer = panel.answer.map { "\($0)" }.joined(separator: "\n")
            let values = panel.answer.flatMap(\.values).map(\.value)
            #expect(values.contains { $0.isFinite }, Comment(rawValue: "panel \"\(panel.title)\": \(panel.expression) returned no data:\n\(answer)"))
        }
        #expect(observed.runIds.contains(Self.runId), Comment(rawValue: "run_id values: \(observed.runIds)"))
    }

    /// The run and its queries, once for both tests.
    static func observe() async throws -> Observation {
        let directory = try TemporaryDirectory()
        let port = try LocalPort.free()
        let prometheus = try await LocalPrometheus(scraping: ["127.0.0.1:\(port)"])
        defer { prometheus.stop() }
        try await prometheus.waitForFirstScrape(of: "127.0.0.1:\(port)")
        let file = directory.path + "/scraped.yaml"
        try """
        version: 2
        name: scraped
        target: local
        local:
          faults: ["editFailure:0.02@applyEdits"]
        scenarios:
          adds:
            executor: constant-vus
            vus: 2
            duration: 20s
            exec: applyEdits
            adds: 1
        """.write(toFile: file, atomically: true, encoding: .utf8)
        // The load starts a few seconds after the endpoint, so that Prometheus scrapes every series at zero first.
        let startAt = Date().addingTimeInterval(6).formatted(.iso8601)
        let run = try BackgroundCommand([
            "run", file, "--out", directory.path + "/out", "--formats", "md", "--metrics-listen", "127.0.0.1:\(port)", "--metrics-linger", "60s",
            "--run-id", runId, "--start-at", startAt,
        ])
        defer { run.stop() }
        let output = run.read { $0.contains("report.json") }
        let report = try CommandLineTests.report(in: directory.path + "/out", output: output)
        let requests = try #require(report.aggregate(.httpReqs)?.count, Comment(rawValue: output + run.errorOutput))
        // Waits (during the linger) for a scrape of the final counts.
        let selector = "featureload_http_reqs_total{run_id=\"\(runId)\"}"
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, try await prometheus.query("sum(\(selector))").first?.values.first?.value != requests {
            try await Task.sleep(for: .milliseconds(500))
        }
        let lastScrape = try #require(
            try await prometheus.query("max(timestamp(\(selector)))").first?.values.first?.value,
            Comment(rawValue: "Prometheus holds no \(selector):\n\(prometheus.log)"))
        let history = try await prometheus.query("\(selector)[1h]", at: lastScrape)
        let firstScrape = history.compactMap { $0.values.first?.time }.min() ?? lastScrape - 30
        var panels: [(String, String, [LocalPrometheus.Series])] = []
        for (title, expression) in try dashboardQueries() {
            panels.append((title, expression, try await prometheus.queryRange(expression, from: firstScrape, to: lastScrape)))
        }
        return Observation(
            report: report, output: output, lastScrape: lastScrape, firstScrape: firstScrape,
            requestsIncrease: try await prometheus.query("sum(increase(featureload_http_reqs_total[1h]))", at: lastScrape),
            medianEstimate: try await prometheus.query(
                "histogram_quantile(0.5, sum by (le) (increase(featureload_http_req_duration_seconds_bucket[1h])))", at: lastScrape),
            firstRequestValues: history,
            scrapes: try await prometheus.query("up[1h]", at: lastScrape) + prometheus.query("scrape_duration_seconds[1h]", at: lastScrape),
            panels: panels,
            runIds: try await prometheus.labelValues("run_id", match: "featureload_http_reqs_total"))
    }

    /// Every query of the dashboard's panels, with Grafana's variables filled in as Grafana would for this run: the
    /// run id, a rate interval of four scrape intervals, and the run's whole span as the range.
    static func dashboardQueries() throws -> [(title: String, expression: String)] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../deploy/grafana/featureload.json").path
        let dashboard = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        var queries: [(String, String)] = []
        for panel in panels where panel["type"] as? String != "row" {
            let title = panel["title"] as? String ?? "?"
            let targets = try #require(panel["targets"] as? [[String: Any]], Comment(rawValue: "panel \(title) has no targets"))
            for target in targets {
                let expression = try #require(target["expr"] as? String, Comment(rawValue: "panel \(title) has a target without expr"))
                queries.append(
                    (
                        title,
                        expression
                            .replacingOccurrences(of: "$run_id", with: runId)
                            .replacingOccurrences(of: "$__rate_interval", with: "4s")
                            .replacingOccurrences(of: "$__range", with: "1h")
                    ))
            }
        }
        return queries
    }
}
