/// A threshold: a metric (optionally filtered by tags), and conditions its aggregate must meet (k6's syntax).
///
/// `http_req_duration{scenario:batched}: ["p(95)<200", "avg<100"]`, or the object form
/// `{ threshold: "rate<0.01", abortOnFail: true, delayAbortEval: 10s }`.
package struct ThresholdSpec: Sendable, Hashable {
    /// The key as written, e.g. `http_req_duration{scenario:batched}`.
    package var key: String
    package var metric: MetricName
    package var filter: [String: String]
    package var conditions: [Condition]

    package init(key: String, metric: MetricName, filter: [String: String] = [:], conditions: [Condition]) {
        self.key = key
        self.metric = metric
        self.filter = filter
        self.conditions = conditions
    }

    /// One `aggregation operator value` condition, e.g. `p(99.9)<500`.
    package struct Condition: Sendable, Hashable {
        package var text: String
        package var aggregation: Aggregation
        package var comparison: Comparison
        package var value: Double
        /// Stop the run as soon as this fails (after ``delayAbortEval``).
        package var abortOnFail = false
        var delayAbortEval: Duration = .zero

        package init(text: String, aggregation: Aggregation, comparison: Comparison, value: Double) {
            self.text = text
            self.aggregation = aggregation
            self.comparison = comparison
            self.value = value
        }
    }

    package enum Aggregation: Sendable, Hashable, CustomStringConvertible {
        case count, rate, avg, min, max, med, value
        case percentile(Double)

        package var description: String {
            switch self {
            case .count: return "count"
            case .rate: return "rate"
            case .avg: return "avg"
            case .min: return "min"
            case .max: return "max"
            case .med: return "med"
            case .value: return "value"
            case .percentile(let p): return "p(\(ThresholdSpec.format(p)))"
            }
        }
    }

    package enum Comparison: String, Sendable, Hashable, CaseIterable {
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case greater = ">"

        func holds(_ lhs: Double, _ rhs: Double) -> Bool {
            switch self {
            case .less: return lhs < rhs
            case .lessOrEqual: return lhs <= rhs
            case .greater: return lhs > rhs
            case .greaterOrEqual: return lhs >= rhs
            case .equal: return lhs == rhs
            case .notEqual: return lhs != rhs
            }
        }
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
