import Foundation
import Testing

@testable import LoadRunner

/// Charts that do not mislead: one x range for a scenario's per-second charts, no time series for a run of a
/// second or two, and a compare page that leads with what changed.
@Suite struct ChartTests {
    /// The x tick labels of each chart in `html`, by the chart's title.
    static func xTicks(_ html: String) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for chart in html.components(separatedBy: "<svg ").dropFirst() {
            guard let title = chart.firstMatch(of: /aria-label="([^"]*)"/)?.1 else { continue }
            result[String(title)] = chart.matches(of: /class="tick" text-anchor="middle">([^<]*)</).map { String($0.1) }
        }
        return result
    }

    @Test("charts given one x range draw the same x axis, whatever seconds their own points cover")
    func sharedRange() {
        func chart(_ xs: [Double], range: ClosedRange<Double>?) -> String {
            var chart = SVGChart(
                title: "t", xLabel: "s", yLabel: "y", series: [SVGChart.Series(name: "a", color: "#000", points: xs.map { ($0, 1) })])
            chart.xRange = range
            return chart.svg
        }
        let ticks = { (svg: String) in Self.xTicks(svg)["t"] ?? [] }
        #expect(ticks(chart([1, 2, 3], range: 0...9)) == ticks(chart([0, 4, 9], range: 0...9)))
        #expect(ticks(chart([1, 2, 3], range: nil)) != ticks(chart([0, 4, 9], range: nil)))
    }

    @Test("a scenario's per-second charts share one x axis", .timeLimit(.minutes(1)))
    func scenarioCharts() async throws {
        let report = try await RunnerIntegrationTests.run(
            RunnerIntegrationTests.plan(
                "  steady:\n    executor: constant-vus\n    vus: 2\n    duration: 3s\n    gracefulStop: 60s\n    exec: query\n    returnCountOnly: true\n"
            ))
        // Each VU's first request starts at once; a long gracefulStop lets it finish even when the machine is so busy
        // that the service answers nothing within the 3 s (seen with the whole suite starting its servers at once).
        // A run that sent nothing (its setup failed on an overloaded machine) draws no charts: say why, not just that.
        let requests = report.aggregate(.httpReqs)?.count ?? 0
        let why = Comment(
            rawValue: "requests \(requests); warnings \(report.scenarios.flatMap(\.warnings)); errors \(report.scenarios.map(\.errors))")
        try #require(requests > 0, why)
        let charts = Self.xTicks(HTMLRenderer.render(report))
        let perSecond = ["Throughput per second", "Request latency per second", "Failures per second"].compactMap { charts[$0] }
        #expect(perSecond.count == 3, "\(charts.keys)")
        #expect(Set(perSecond.map { $0.joined(separator: ",") }).count == 1, "\(perSecond)")
    }

    @Test("a run shorter than 2 s says it is too short for a time series and draws its seconds as bars, not lines", .timeLimit(.minutes(1)))
    func shortRun() async throws {
        var report = try await RunnerIntegrationTests.run(
            RunnerIntegrationTests.plan(
                "  brief:\n    executor: shared-iterations\n    vus: 1\n    iterations: 3\n    exec: query\n    returnCountOnly: true\n"))
        // Three requests take well under 2 s, unless a busy machine holds the run up: the page goes by what was recorded.
        report.scenarios[0].durationSeconds = min(report.scenarios[0].durationSeconds, 1.5)
        let html = HTMLRenderer.render(report)
        #expect(html.contains("is too short for a time series: its seconds are shown as bars"))
        // The per-second charts have bars and no line; the HDR distribution keeps its line.
        let perSecond = html.components(separatedBy: "<svg ").dropFirst().filter { $0.firstMatch(of: /aria-label="[^"]*per second[^"]*"/) != nil }
        #expect(!perSecond.isEmpty)
        for chart in perSecond {
            #expect(!chart.contains("<polyline") && chart.contains("<rect"), "\(chart.prefix(120))")
        }
        #expect(html.contains(#"aria-label="Latency by percentile (HDR)""#), "the distribution still shows")
    }

    @Test("the compare page leads with what changed, as the Markdown does, and wraps text between words on a wide page")
    func comparePage() {
        let side = RunComparisonTests.timedSide(seconds: [1_000, 1_000, 1_000, 1_000, 1_000], micros: 1_000)
        let slow = RunComparisonTests.timedSide(seconds: [500, 500, 500, 500, 500], micros: 2_000)
        let comparison = RunComparison(
            baseline: "a.json", candidate: "b.json", tolerance: 0.1,
            rows: RunComparison.rows(scenario: "s", operation: nil, side, slow, tolerance: 0.1, metrics: RunComparison.metrics))
        #expect(comparison.regressed)
        let html = comparison.html
        let changed = try? #require(html.range(of: "<h2>What changed</h2>"))
        let every = try? #require(html.range(of: "<h2>Every metric</h2>"))
        if let changed, let every { #expect(changed.lowerBound < every.lowerBound) }
        #expect(html.contains(#"<td class="bad">regression</td>"#))
        #expect(html.contains("max-width:1400px") && html.contains("overflow-wrap:normal"))
    }
}
