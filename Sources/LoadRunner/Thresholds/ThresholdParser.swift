import Foundation

/// Parses k6 threshold keys and conditions. Pure; errors say what k6 accepts.
package enum ThresholdParser {
    package struct Problem: Error, Sendable, Hashable {
        package var problem: String
        package var fix: String
    }

    /// `http_req_duration{scenario:batched,operation:query}` → the metric and its tag filter.
    package static func key(_ text: String) -> Result<(MetricName, [String: String]), Problem> {
        let trimmed = text.trimmingCharacters()
        var name = trimmed
        var filter: [String: String] = [:]
        if let open = trimmed.firstIndex(of: "{") {
            guard trimmed.hasSuffix("}") else {
                return .failure(
                    Problem(problem: "the tag filter of '\(text)' is not closed", fix: "write e.g. `http_req_duration{scenario:batched}`"))
            }
            name = String(trimmed[..<open])
            let inner = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
            for pair in inner.split(separator: ",") {
                let parts = pair.split(separator: ":", maxSplits: 1).map { String($0).trimmingCharacters() }
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    return .failure(
                        Problem(problem: "'\(pair)' in '\(text)' is not a tag:value pair", fix: "write tags as `{scenario:batched,operation:query}`"))
                }
                filter[parts[0]] = parts[1]
            }
        }
        guard let metric = MetricName(rawValue: name) else {
            let names = MetricName.allCases.map(\.rawValue)
            let suggestion = closest(to: name, in: names).map { "did you mean `\($0)`? " } ?? ""
            return .failure(Problem(problem: "unknown metric '\(name)'", fix: "\(suggestion)metrics: \(names.joined(separator: ", "))"))
        }
        for tag in filter.keys where !metric.tags.contains(tag) {
            return .failure(
                Problem(
                    problem: "\(metric.rawValue) has no tag '\(tag)'",
                    fix: "filter it by \(metric.tags.joined(separator: ", ")) (or a scenario's own tags)"))
        }
        return .success((metric, filter))
    }

    /// `p(95)<200`, `rate<0.01`, `count>=100`, `avg<=50`, `med<10`, `max<1000`.
    package static func condition(_ text: String, metric: MetricName) -> Result<ThresholdSpec.Condition, Problem> {
        let compact = text.filter { !$0.isWhitespace }
        guard let comparison = ThresholdSpec.Comparison.allCases.first(where: { compact.contains($0.rawValue) }),
            let range = compact.range(of: comparison.rawValue)
        else {
            return .failure(Problem(problem: "'\(text)' has no comparison", fix: "write `aggregation operator value`, e.g. `p(95)<200`"))
        }
        let left = String(compact[..<range.lowerBound])
        let right = String(compact[range.upperBound...])
        guard let value = Double(right), value.isFinite else {
            return .failure(Problem(problem: "'\(right)' in '\(text)' is not a number", fix: "write a number after the operator, e.g. `p(95)<200`"))
        }
        let aggregation: ThresholdSpec.Aggregation
        switch left {
        case "count": aggregation = .count
        case "rate": aggregation = .rate
        case "avg": aggregation = .avg
        case "min": aggregation = .min
        case "max": aggregation = .max
        case "med": aggregation = .med
        case "value": aggregation = .value
        default:
            guard left.hasPrefix("p("), left.hasSuffix(")"), let p = Double(left.dropFirst(2).dropLast()), p >= 0, p <= 100 else {
                return .failure(
                    Problem(
                        problem: "unknown aggregation '\(left)' in '\(text)'",
                        fix: "\(metric.rawValue) is a \(metric.kind.rawValue); use \(metric.kind.aggregations.joined(separator: ", "))"))
            }
            aggregation = .percentile(p)
        }
        let allowed: Bool
        switch (metric.kind, aggregation) {
        case (.counter, .count), (.counter, .rate), (.rate, .rate), (.gauge, .value), (.gauge, .min), (.gauge, .max): allowed = true
        case (.trend, .avg), (.trend, .min), (.trend, .max), (.trend, .med), (.trend, .percentile): allowed = true
        default: allowed = false
        }
        guard allowed else {
            return .failure(
                Problem(
                    problem: "'\(left)' does not apply to \(metric.rawValue), a \(metric.kind.rawValue)",
                    fix: "use \(metric.kind.aggregations.joined(separator: ", "))"))
        }
        return .success(ThresholdSpec.Condition(text: text, aggregation: aggregation, comparison: comparison, value: value))
    }
}
