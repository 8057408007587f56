package import CoreMetrics
import Synchronization

/// The names and histogram buckets of the metrics a run exposes while it lasts (`run --metrics-listen`): k6's names,
/// prefixed `featureload_`, counters ending in `_total`.
package enum LiveMetricName {
    package static let httpReqs = "featureload_http_reqs_total"
    package static let httpReqDuration = "featureload_http_req_duration_seconds"
    package static let httpReqFailed = "featureload_http_req_failed_total"
    package static let edits = "featureload_edits_total"
    package static let editFailed = "featureload_edit_failed_total"
    package static let editOutcomeUnknown = "featureload_edit_outcome_unknown_total"
    package static let retries = "featureload_retries_total"
    package static let iterations = "featureload_iterations_total"
    package static let droppedIterations = "featureload_dropped_iterations_total"
    package static let vus = "featureload_vus"

    /// Latency buckets from 1 ms to 60 s, for every duration histogram a process exposes (a backend applies them to
    /// the timers by name: swift-prometheus's `durationHistogramBuckets`).
    package static let durationBuckets: [Duration] = [
        .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        .seconds(30), .seconds(60),
    ]
}

/// Counts what a run does through swift-metrics as it happens, for a scrape while the run lasts.
///
/// Every series carries `run_id` (shared by every generator of one test), `generator` (its execution segment) and
/// `scenario`, plus the scenario's tags (`--tag`, the file's `tags:`); requests also `operation` and `status`.
/// Metric handles are made once per label set and cached, so the hot path is a dictionary look-up under a lock and
/// atomic increments. The factory is injected (no process-global `MetricsSystem`), so tests can use their own.
package final class LiveRunMetrics: Sendable {
    let factory: any MetricsFactory
    let labels: [(String, String)]

    /// Metrics made by `factory`, labelled with `runId` and `generator` (an execution segment such as `0:1/4`).
    package init(factory: any MetricsFactory, runId: String, generator: String) {
        self.factory = factory
        labels = [("run_id", runId), ("generator", generator)]
    }

    /// Makes the series of every measured scenario of `plan` now, at zero, before any load: a scrape before the
    /// first request already sees them, so Prometheus's `increase()` and `rate()`, which count from a series' first
    /// sample, count every request (the Prometheus advice for series whose labels are known ahead).
    package func announce(_ plan: ScenarioPlan) {
        for spec in plan.scenarios where !spec.isWarmUp {
            _ = scenario(spec.name, operations: spec.operations.map(\.label), tags: plan.metricTags(of: spec))
        }
    }

    /// The metrics of one scenario, whose operations have these labels (by index).
    package func scenario(_ name: String, operations: [String], tags: [String: String]) -> LiveScenarioMetrics {
        LiveScenarioMetrics(factory: factory, labels: Self.tagLabels(tags) + labels + [("scenario", name)], operations: operations)
    }

    /// Tags as label pairs, sorted: each name made a valid Prometheus label name (other characters become `_`), and
    /// a tag left out when its name is a built-in label's or another tag's already.
    static func tagLabels(_ tags: [String: String]) -> [(String, String)] {
        var result: [(String, String)] = []
        var names: Set<String> = []
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) {
            let name = TagName.label(key)
            // Refused where tags are read (``TagName/problem(_:)``); left out here should one come another way.
            guard TagName.problem(key) == nil, names.insert(name).inserted else { continue }
            result.append((name, value))
        }
        return result
    }
}

/// The live metrics of one scenario (see ``LiveRunMetrics``); thread-safe.
package final class LiveScenarioMetrics: Sendable {
    struct OperationMetrics: Sendable {
        let iterations: CoreMetrics.Counter
        let edits: CoreMetrics.Counter
        let editFailed: CoreMetrics.Counter
        let editOutcomeUnknown: CoreMetrics.Counter
        let retries: CoreMetrics.Counter
    }

    struct RequestMetrics: Sendable {
        let count: CoreMetrics.Counter
        let failed: CoreMetrics.Counter
        let duration: CoreMetrics.Timer
    }

    private let factory: any MetricsFactory
    private let labels: [(String, String)]
    private let operationLabels: [String]
    private let operations: [OperationMetrics]
    /// Keyed by operation index << 16 | status, made on first use.
    private let requests = Mutex<[Int: RequestMetrics]>([:])
    private let dropped: CoreMetrics.Counter
    private let vus: CoreMetrics.Gauge

    init(factory: any MetricsFactory, labels: [(String, String)], operations: [String]) {
        self.factory = factory
        self.labels = labels
        operationLabels = operations
        self.operations = operations.map { operation in
            let dimensions = labels + [("operation", operation)]
            return OperationMetrics(
                iterations: CoreMetrics.Counter(label: LiveMetricName.iterations, dimensions: dimensions, factory: factory),
                edits: CoreMetrics.Counter(label: LiveMetricName.edits, dimensions: dimensions, factory: factory),
                editFailed: CoreMetrics.Counter(label: LiveMetricName.editFailed, dimensions: dimensions, factory: factory),
                editOutcomeUnknown: CoreMetrics.Counter(label: LiveMetricName.editOutcomeUnknown, dimensions: dimensions, factory: factory),
                retries: CoreMetrics.Counter(label: LiveMetricName.retries, dimensions: dimensions, factory: factory))
        }
        dropped = CoreMetrics.Counter(label: LiveMetricName.droppedIterations, dimensions: labels, factory: factory)
        vus = CoreMetrics.Gauge(label: LiveMetricName.vus, dimensions: labels, factory: factory)
        // The usual answer's series exist from the start, at zero (see LiveRunMetrics.announce); others on first use.
        for operation in operations.indices { _ = requestMetrics(operation: operation, status: 200) }
    }

    /// Counts a finished iteration and its requests.
    package func record(_ sample: IterationSample) {
        let operation = operations[sample.operation]
        operation.iterations.increment()
        if sample.editsApplied > 0 { operation.edits.increment(by: sample.editsApplied) }
        if sample.editsFailed > 0 { operation.editFailed.increment(by: sample.editsFailed) }
        if sample.editsUnknown > 0 { operation.editOutcomeUnknown.increment(by: sample.editsUnknown) }
        if sample.retries > 0 { operation.retries.increment(by: sample.retries) }
        for request in sample.requests {
            let metrics = requestMetrics(operation: sample.operation, status: request.status)
            metrics.count.increment()
            if request.failed { metrics.failed.increment() }
            metrics.duration.recordNanoseconds(Self.nanoseconds(request.duration))
        }
    }

    /// Counts an iteration the executor could not start.
    package func recordDropped() {
        dropped.increment()
    }

    /// Sets the number of VUs busy in an iteration now.
    func setBusy(_ busy: Int) {
        vus.record(busy)
    }

    private func requestMetrics(operation: Int, status: Int) -> RequestMetrics {
        let key = operation << 16 | (status & 0xFFFF)
        return requests.withLock { cache in
            if let known = cache[key] { return known }
            let dimensions = labels + [("operation", operationLabels[operation]), ("status", RequestSample.statusTag(status))]
            let made = RequestMetrics(
                count: CoreMetrics.Counter(label: LiveMetricName.httpReqs, dimensions: dimensions, factory: factory),
                failed: CoreMetrics.Counter(label: LiveMetricName.httpReqFailed, dimensions: dimensions, factory: factory),
                duration: CoreMetrics.Timer(label: LiveMetricName.httpReqDuration, dimensions: dimensions, factory: factory))
            cache[key] = made
            return made
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
