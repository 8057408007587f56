import FeatureModel

/// Evaluates thresholds on metric series. Pure: the same series give the same verdict, during a run (for
/// `abortOnFail`) or afterwards, on one generator's report or on several merged.
package enum ThresholdEvaluator {
    /// Each condition of each threshold, with its measured value.
    /// - Parameters:
    ///   - thresholds: The file's thresholds.
    ///   - metrics: The series to aggregate.
    ///   - durationSeconds: The run's length, for counters' `rate`.
    package static func evaluate(_ thresholds: [ThresholdSpec], metrics: [MetricSeries], durationSeconds: Double) -> [ThresholdResult] {
        thresholds.flatMap { threshold in
            let series = merged(metrics, metric: threshold.metric, filter: threshold.filter)
            return threshold.conditions.map { condition in
                let value = series.flatMap { aggregate(condition.aggregation, of: $0, durationSeconds: durationSeconds) }
                return ThresholdResult(
                    key: threshold.key, condition: condition.text, value: value,
                    passed: value.map { condition.comparison.holds($0, condition.value) } ?? false, abortOnFail: condition.abortOnFail)
            }
        }
    }

    /// The first `abortOnFail` condition that fails on `metrics` after `elapsed` of the run, past its
    /// `delayAbortEval`; conditions without samples yet do not abort (a later scenario's threshold waits for it).
    static func abortingFailure(_ thresholds: [ThresholdSpec], metrics: [MetricSeries], elapsed: Duration) -> ThresholdResult? {
        let seconds = elapsed.seconds
        for threshold in thresholds {
            let armed = threshold.conditions.filter { $0.abortOnFail && elapsed >= $0.delayAbortEval }
            guard !armed.isEmpty, let series = merged(metrics, metric: threshold.metric, filter: threshold.filter) else { continue }
            for condition in armed {
                guard let value = aggregate(condition.aggregation, of: series, durationSeconds: seconds),
                    !condition.comparison.holds(value, condition.value)
                else { continue }
                return ThresholdResult(key: threshold.key, condition: condition.text, value: value, passed: false, abortOnFail: true)
            }
        }
        return nil
    }

    /// The series of `metric` matching `filter`, merged; nil when none matches.
    static func merged(_ metrics: [MetricSeries], metric: MetricName, filter: [String: String]) -> MetricSeries? {
        var result: MetricSeries?
        for series in metrics where series.metric == metric && series.matches(filter) {
            if result == nil { result = series } else { result?.merge(series) }
        }
        return result
    }

    /// One aggregation of a series: trends in milliseconds, rates as fractions, counters as sums or per second.
    package static func aggregate(_ aggregation: ThresholdSpec.Aggregation, of series: MetricSeries, durationSeconds: Double) -> Double? {
        switch series.metric.kind {
        case .counter:
            switch aggregation {
            case .count: return series.count
            case .rate: return durationSeconds > 0 ? series.count / durationSeconds : nil
            default: return nil
            }
        case .rate:
            guard case .rate = aggregation else { return nil }
            return series.count > 0 ? (series.passes ?? 0) / series.count : 0
        case .trend:
            guard let histogram = series.histogram else { return nil }
            if histogram.count == 0 { return nil }
            switch aggregation {
            case .avg: return histogram.mean / 1000
            case .min: return Double(histogram.min) / 1000
            case .max: return Double(histogram.max) / 1000
            case .med: return Double(histogram.percentile(50)) / 1000
            case .percentile(let p): return Double(histogram.percentile(p)) / 1000
            default: return nil
            }
        case .gauge:
            switch aggregation {
            case .value: return series.value
            case .min: return series.min
            case .max: return series.max
            default: return nil
            }
        }
    }
}
