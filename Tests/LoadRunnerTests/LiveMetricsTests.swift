import CoreMetrics
import FeatureloadTestSupport
import LoadRunner
import Prometheus
import Testing

/// The live series a recorder feeds (`run --metrics-listen`), read back from a registry of the test's own: names,
/// labels, counts and histogram buckets.
@Suite struct LiveMetricsTests {
    static func registry() -> (PrometheusCollectorRegistry, PrometheusMetricsFactory) {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = LiveMetricName.durationBuckets
        return (registry, factory)
    }

    static func request(_ status: Int, _ duration: Duration, failed: Bool = false) -> RequestSample {
        RequestSample(status: status, duration: duration, failed: failed)
    }

    /// Two applyEdits iterations (three requests, one a 503 retried), one query cut off, one dropped iteration, and
    /// one iteration still running.
    static func record(into recorder: ScenarioRecorder) {
        var first = IterationSample(operation: 0, intendedStart: .zero, end: .milliseconds(30))
        first.requests = [request(503, .milliseconds(3), failed: true), request(200, .milliseconds(20))]
        first.editsApplied = 2
        first.retries = 1
        recorder.iterationStarted()
        recorder.record(first)
        var second = IterationSample(operation: 0, intendedStart: .milliseconds(40), end: .milliseconds(800))
        second.requests = [request(200, .milliseconds(700))]
        second.editsFailed = 1
        second.editsUnknown = 1
        recorder.iterationStarted()
        recorder.iterationStarted()
        recorder.record(second)
        var query = IterationSample(operation: 1, intendedStart: .zero, end: .seconds(61))
        query.requests = [request(RequestSample.interrupted, .seconds(61), failed: true)]
        recorder.iterationStarted()
        recorder.record(query)
        recorder.recordDropped(at: .seconds(1))
    }

    @Test("a recorder's requests, edits, retries, iterations and drops land in the live series, labelled")
    func countsAndLabels() {
        let (registry, factory) = Self.registry()
        let run = LiveRunMetrics(factory: factory, runId: "nightly-7", generator: "1/4:2/4")
        let operations = ["applyEdits", "query"]
        let recorder = ScenarioRecorder(
            scenario: "adds", operations: operations, layers: [0, 0], keepIds: false,
            live: run.scenario("adds", operations: operations, tags: ["branch": "main", "scenario": "ignored", "run-id": "ignored", "build.no": "7"]))
        Self.record(into: recorder)
        let emitted = registry.emitToString()
        let text = PrometheusText(emitted)
        let comment = Comment(rawValue: emitted)
        let base = ["run_id": "nightly-7", "generator": "1/4:2/4", "scenario": "adds", "branch": "main"]
        let edits = base.merging(["operation": "applyEdits"]) { $1 }

        #expect(text.sum(LiveMetricName.httpReqs, matching: base) == 4, comment)
        #expect(text.sum(LiveMetricName.httpReqs, matching: edits.merging(["status": "200"]) { $1 }) == 2, comment)
        #expect(text.sum(LiveMetricName.httpReqs, matching: edits.merging(["status": "503"]) { $1 }) == 1, comment)
        #expect(text.sum(LiveMetricName.httpReqs, matching: ["operation": "query", "status": "interrupted"]) == 1, comment)
        #expect(text.sum(LiveMetricName.httpReqFailed, matching: base) == 2, comment)
        #expect(text.sum(LiveMetricName.edits, matching: edits) == 2, comment)
        #expect(text.sum(LiveMetricName.editFailed, matching: edits) == 1, comment)
        #expect(text.sum(LiveMetricName.editOutcomeUnknown, matching: edits) == 1, comment)
        #expect(text.sum(LiveMetricName.retries, matching: edits) == 1, comment)
        #expect(text.sum(LiveMetricName.iterations, matching: base) == 3, comment)
        #expect(text.sum(LiveMetricName.iterations, matching: ["operation": "query"]) == 1, comment)
        #expect(text.sum(LiveMetricName.droppedIterations, matching: base) == 1, comment)
        #expect(text.sum(LiveMetricName.vus, matching: base) == 1, comment)
        // Every series carries the run's identity; a tag cannot replace a built-in label.
        #expect(text.samples.allSatisfy { $0.labels["run_id"] == "nightly-7" && $0.labels["scenario"] == "adds" }, comment)
        // Tag names become label names: `build.no` is `build_no`; `run-id` would be a second run_id, so it is left out.
        #expect(text.samples.allSatisfy { $0.labels["build_no"] == "7" && $0.labels["run-id"] == nil }, comment)
        #expect(!emitted.contains("ignored"), comment)
        #expect(text.types[LiveMetricName.httpReqs] == "counter" && text.types[LiveMetricName.vus] == "gauge", comment)
        #expect(text.types[LiveMetricName.httpReqDuration] == "histogram", comment)
    }

    @Test("request durations are a histogram in seconds with buckets from 1 ms to 60 s, counted like the requests")
    func durationHistogram() throws {
        let (registry, factory) = Self.registry()
        let run = LiveRunMetrics(factory: factory, runId: "r", generator: "0:1")
        let recorder = ScenarioRecorder(
            scenario: "s", operations: ["applyEdits", "query"], layers: [0, 0], keepIds: false,
            live: run.scenario("s", operations: ["applyEdits", "query"], tags: [:]))
        Self.record(into: recorder)
        let emitted = registry.emitToString()
        let text = PrometheusText(emitted)
        let comment = Comment(rawValue: emitted)
        let name = LiveMetricName.httpReqDuration
        #expect(text.sum(name + "_count") == text.sum(LiveMetricName.httpReqs), comment)
        let ok = ["operation": "applyEdits", "status": "200"]
        let buckets = text.series(name + "_bucket", matching: ok)
        let bounds = buckets.compactMap { $0.labels["le"].flatMap(Double.init) }.filter(\.isFinite).sorted()
        #expect(bounds.first == 0.001 && bounds.last == 60, comment)
        #expect(bounds.count == LiveMetricName.durationBuckets.count, comment)
        // 20 ms and 700 ms: one at or under 25 ms, both at or under 1 s.
        let at = { (bound: Double) in buckets.first { $0.labels["le"].flatMap(Double.init) == bound }?.value }
        #expect(at(0.025) == 1 && at(1) == 2 && at(0.01) == 0, comment)
        let sum = try #require(text.series(name + "_sum", matching: ok).first?.value)
        #expect(abs(sum - 0.72) < 1e-9, comment)
        // The 61 s request that was cut off lies beyond the last bucket, in +Inf only.
        #expect(text.sum(name + "_bucket", matching: ["status": "interrupted", "le": "+Inf"]) == 1, comment)
        let cutOff = text.series(name + "_bucket", matching: ["status": "interrupted"])
        #expect(cutOff.first { $0.labels["le"].flatMap(Double.init) == 60 }?.value == 0, comment)
    }

    @Test("announcing a plan makes each measured scenario's usual series at zero before any request")
    func announcedSeriesStartAtZero() throws {
        let (registry, factory) = Self.registry()
        let plan = try ScenarioParser.parse(
            yaml: """
                version: 2
                name: announced
                target: local
                scenarios:
                  adds:
                    executor: constant-vus
                    vus: 2
                    duration: 5s
                    exec: applyEdits
                    adds: 1
                  reads:
                    executor: shared-iterations
                    vus: 1
                    iterations: 3
                    exec: query
                """, file: "announced.yaml")
        LiveRunMetrics(factory: factory, runId: "r", generator: "0:1").announce(plan)
        let emitted = registry.emitToString()
        let text = PrometheusText(emitted)
        let comment = Comment(rawValue: emitted)
        for (scenario, operation) in [("adds", "applyEdits"), ("reads", "query")] {
            let labels = ["run_id": "r", "scenario": scenario, "operation": operation]
            #expect(text.series(LiveMetricName.httpReqs, matching: labels.merging(["status": "200"]) { $1 }).map(\.value) == [0], comment)
            #expect(text.series(LiveMetricName.httpReqDuration + "_count", matching: labels).map(\.value) == [0], comment)
            #expect(text.series(LiveMetricName.edits, matching: labels).map(\.value) == [0], comment)
            #expect(text.series(LiveMetricName.iterations, matching: labels).map(\.value) == [0], comment)
        }
        #expect(text.series(LiveMetricName.vus).count == 2 && text.series(LiveMetricName.droppedIterations).count == 2, comment)
        #expect(text.samples.allSatisfy { $0.value == 0 }, comment)
    }
}
