import Foundation

/// Figures computed from a report's raw metrics: what the summary, Markdown, thresholds and comparisons show.
package struct ScenarioView: Sendable {
    package var name: String
    package var record: ScenarioRecord
    package var requests: Int
    package var failedRequests: Int
    package var iterations: Int
    package var droppedIterations: Int
    package var editsApplied: Int
    package var editsFailed: Int
    package var editsUnknown: Int
    /// Edits refused by client-side validation, never sent.
    package var editsInvalid: Int
    package var retries: Int
    package var latency: LatencySummary
    package var iterationLatency: LatencySummary
    package var requestsPerSecond: Double
    package var editsPerSecond: Double
    /// Per operation (label): requests, edits and latency.
    package var operations: [OperationView]
    /// Requests the end of the scenario cut off while they waited for their answer (`status:interrupted`), and the
    /// longest of their waits in milliseconds (a lower bound of what they would have taken).
    package var cutOffRequests = 0
    var cutOffLongestMilliseconds = 0.0

    /// The value of a named metric, for comparisons.
    package func value(of metric: String) -> Double? {
        switch metric {
        case "editsPerSecond": return editsPerSecond
        case "requestsPerSecond": return requestsPerSecond
        default: return nil
        }
    }
}

/// One operation's figures within a scenario.
package struct OperationView: Sendable {
    package var label: String
    package var requests: Int
    package var failedRequests: Int
    package var iterations: Int
    package var editsApplied: Int
    package var editsFailed: Int
    package var editsInvalid: Int
    package var latency: LatencySummary
}

extension RunReport {
    /// The series matching `filter`, merged into one per metric.
    package func aggregate(_ metric: MetricName, filter: [String: String] = [:]) -> MetricSeries? {
        ThresholdEvaluator.merged(metrics, metric: metric, filter: filter)
    }

    /// The figures of each scenario, computed from the metrics.
    package var views: [ScenarioView] {
        scenarios.map { ScenarioView(record: $0, metrics: metrics) }
    }
}

extension ScenarioView {
    /// The figures of scenario `record`, from the run's metric series.
    package init(record: ScenarioRecord, metrics: [MetricSeries]) {
        let filter = ["scenario": record.name]
        func series(_ metric: MetricName, _ extra: [String: String]) -> MetricSeries? {
            ThresholdEvaluator.merged(metrics, metric: metric, filter: filter.merging(extra) { _, new in new })
        }
        func count(_ metric: MetricName, _ extra: [String: String] = [:]) -> Double { series(metric, extra)?.count ?? 0 }
        func passes(_ metric: MetricName, _ extra: [String: String] = [:]) -> Double { series(metric, extra)?.passes ?? 0 }
        func histogram(_ metric: MetricName, _ extra: [String: String] = [:]) -> LatencyHistogram {
            series(metric, extra)?.histogram ?? LatencyHistogram()
        }
        let seconds = max(record.durationSeconds, 1e-9)
        let edits = count(.edits)
        self.init(
            name: record.name, record: record, requests: Int(count(.httpReqs)), failedRequests: Int(passes(.httpReqFailed)),
            iterations: Int(count(.iterations)), droppedIterations: Int(count(.droppedIterations)), editsApplied: Int(edits),
            editsFailed: Int(passes(.editFailed)), editsUnknown: Int(count(.editOutcomeUnknown)), editsInvalid: Int(count(.editsInvalid)),
            retries: Int(count(.retries)),
            latency: LatencySummary(histogram(.httpReqDuration)), iterationLatency: LatencySummary(histogram(.iterationDuration)),
            requestsPerSecond: count(.httpReqs) / seconds, editsPerSecond: edits / seconds,
            operations: record.operations.map { op in
                let tag = ["operation": op.label]
                return OperationView(
                    label: op.label, requests: Int(count(.httpReqs, tag)), failedRequests: Int(passes(.httpReqFailed, tag)),
                    iterations: Int(count(.iterations, tag)), editsApplied: Int(count(.edits, tag)), editsFailed: Int(passes(.editFailed, tag)),
                    editsInvalid: Int(count(.editsInvalid, tag)), latency: LatencySummary(histogram(.httpReqDuration, tag)))
            })
        let cutOff = ["status": RequestSample.statusTag(RequestSample.interrupted)]
        cutOffRequests = Int(count(.httpReqs, cutOff))
        cutOffLongestMilliseconds = cutOffRequests > 0 ? LatencySummary(histogram(.httpReqDuration, cutOff)).max : 0
    }

    /// What a reader must know about the requests the scenario's end cut off, or nil when none was.
    var cutOffText: String? {
        guard cutOffRequests > 0 else { return nil }
        let by: String
        switch record.stopReason {
        case .gracefulStop: by = "the end of its gracefulStop"
        case .cancelled: by = "the run's interruption"
        default: by = "the end of the scenario"
        }
        let seconds = cutOffLongestMilliseconds / 1000
        let waited = seconds >= 1 ? String(format: "%.1f s", seconds) : String(format: "%.0f ms", cutOffLongestMilliseconds)
        let requests = cutOffRequests == 1 ? "1 request was" : "\(cutOffRequests) requests were"
        return "\(requests) still waiting for the service at \(by), for up to \(waited): counted as failed (status `interrupted`), "
            + "their waits as durations (lower bounds), their edits as outcome unknown"
    }
}
