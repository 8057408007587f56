/// One metric's values for one combination of tags: raw, exactly mergeable data (sums and HDR buckets).
///
/// Aggregations (percentiles, rates, averages) are computed from it when a report is rendered or a threshold is
/// evaluated, never stored, so series from several processes or machines merge without loss.
package struct MetricSeries: Sendable, Codable, Equatable {
    package var metric: MetricName
    /// `scenario`, `operation`, `status` (as applicable), and the scenario's own `tags:`.
    package var tags: [String: String]
    /// Counter: the sum. Rate: values seen. Trend: values recorded. Gauge: samples.
    package var count: Double
    /// Rate: the non-zero values (failures for `http_req_failed`).
    package var passes: Double?
    /// Trend: the values, in microseconds.
    package var histogram: LatencyHistogram?
    /// Gauge: the last, lowest and highest sample.
    package var value: Double?
    package var min: Double?
    package var max: Double?

    package init(metric: MetricName, tags: [String: String]) {
        self.metric = metric
        self.tags = tags
        count = 0
        switch metric.kind {
        case .rate: passes = 0
        case .trend: histogram = LatencyHistogram()
        case .counter, .gauge: break
        }
    }

    /// Adds `other`'s values (same metric; tags are the caller's business).
    package mutating func merge(_ other: MetricSeries) {
        count += other.count
        if let otherPasses = other.passes { passes = (passes ?? 0) + otherPasses }
        if let otherHistogram = other.histogram {
            if histogram == nil { histogram = LatencyHistogram(significantDigits: otherHistogram.significantDigits) }
            histogram?.merge(otherHistogram)
        }
        if let otherValue = other.value { value = Swift.max(value ?? otherValue, otherValue) }
        if let otherMin = other.min { min = Swift.min(min ?? otherMin, otherMin) }
        if let otherMax = other.max { max = Swift.max(max ?? otherMax, otherMax) }
    }

    /// Whether every tag in `filter` has the given value here.
    package func matches(_ filter: [String: String]) -> Bool {
        filter.allSatisfy { tags[$0.key] == $0.value }
    }
}
