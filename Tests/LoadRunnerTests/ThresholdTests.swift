import Foundation
import LoadRunner
import Testing

/// k6 threshold syntax: parsing, every aggregation and operator, tag filters, and errors for what cannot be measured.
@Suite struct ThresholdTests {
    static func trend(_ values: [UInt64], tags: [String: String]) -> MetricSeries {
        var series = MetricSeries(metric: .httpReqDuration, tags: tags)
        for value in values { series.histogram?.record(microseconds: value) }
        series.count = Double(values.count)
        return series
    }

    static var metrics: [MetricSeries] {
        var failed = MetricSeries(metric: .httpReqFailed, tags: ["scenario": "a", "operation": "query", "status": "200"])
        failed.count = 200
        failed.passes = 3
        var reqs = MetricSeries(metric: .httpReqs, tags: ["scenario": "a", "operation": "query", "status": "200"])
        reqs.count = 200
        return [
            trend((1...100).map { UInt64($0) * 1000 }, tags: ["scenario": "a", "operation": "query", "status": "200"]),
            trend([500_000], tags: ["scenario": "b", "operation": "applyEdits", "status": "200"]),
            failed, reqs,
        ]
    }

    static func evaluate(_ key: String, _ condition: String) throws -> ThresholdResult {
        let (metric, filter) = try ThresholdParser.key(key).get()
        let parsed = try ThresholdParser.condition(condition, metric: metric).get()
        let spec = ThresholdSpec(key: key, metric: metric, filter: filter, conditions: [parsed])
        return try #require(ThresholdEvaluator.evaluate([spec], metrics: metrics, durationSeconds: 10).first)
    }

    @Test(
        "every trend aggregation and operator",
        arguments: [
            ("p(95)<200", true), ("p(95)<90", false), ("p(99.9)<=500", true), ("avg<10", false), ("med>=49", true), ("min==1", true),
            ("max<=501", true), ("max>400", true), ("p(50) < 60", true),
        ])
    func trendConditions(condition: String, passes: Bool) throws {
        #expect(try Self.evaluate("http_req_duration", condition).passed == passes, "\(condition)")
    }

    @Test("tag filters select series: scenario and operation")
    func tagFilters() throws {
        let query = try Self.evaluate("http_req_duration{scenario:a,operation:query}", "max<150")
        #expect(query.passed)
        #expect(abs((query.value ?? 0) - 100) < 0.2)
        let edits = try Self.evaluate("http_req_duration{operation:applyEdits}", "max<150")
        #expect(!edits.passed)
        #expect(abs((edits.value ?? 0) - 500) < 0.5)
    }

    @Test("rates and counters: rate<, count>, counters' rate per second")
    func ratesAndCounters() throws {
        #expect(try Self.evaluate("http_req_failed", "rate<0.02").passed)
        #expect(try Self.evaluate("http_req_failed", "rate<0.01").value == 0.015)
        #expect(try Self.evaluate("http_reqs", "count>=200").passed)
        #expect(try Self.evaluate("http_reqs", "rate>19").value == 20)
        let missing = try Self.evaluate("http_req_duration{scenario:nothing}", "p(95)<1")
        #expect(!missing.passed && missing.value == nil)
    }

    @Test("unknown metrics, tags and aggregations are errors with a fix")
    func errors() {
        guard case .failure(let typo) = ThresholdParser.key("http_req_durations") else {
            Issue.record("accepted a typo")
            return
        }
        #expect(typo.fix.contains("did you mean `http_req_duration`"))
        guard case .failure(let tag) = ThresholdParser.key("dropped_iterations{status:200}") else {
            Issue.record("accepted a tag")
            return
        }
        #expect(tag.problem.contains("no tag 'status'"))
        guard case .failure(let aggregation) = ThresholdParser.condition("p(95)<1", metric: .httpReqFailed) else {
            Issue.record("accepted p(95) on a rate")
            return
        }
        #expect(aggregation.fix.contains("rate"))
        guard case .failure = ThresholdParser.condition("p(95)", metric: .httpReqDuration) else {
            Issue.record("no operator")
            return
        }
        guard case .failure = ThresholdParser.condition("p(95)<fast", metric: .httpReqDuration) else {
            Issue.record("no number")
            return
        }
    }
}
