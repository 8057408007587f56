import Foundation

/// How every output writes a figure (console, Markdown, HTML, JUnit, compare): one rule, so the same number reads
/// the same everywhere.
enum Figures {
    /// A measured figure: whole numbers as they are (`800`, never `800.0` or `8e+02`); others to three significant
    /// digits, in fixed notation (`14000`, `0.0056`, `12.3`).
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "–" : (value > 0 ? "∞" : "−∞") }
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return significant(value, digits: 3)
    }

    /// `value` rounded to `digits` significant digits, in fixed notation, without trailing zeros.
    static func significant(_ value: Double, digits: Int) -> String {
        guard value != 0, value.isFinite else { return number(value) }
        let magnitude = Int(floor(log10(abs(value))))
        let decimals = min(max(0, digits - 1 - magnitude), 17)
        var text = String(format: "%.\(decimals)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }

    /// A threshold's measured value, in its metric's unit and with as many digits as it takes to decide the
    /// condition: `rate<0.01` measured 0.0056 reads `0.0056 (0.56 %)`, not `0.01`; `p(95)<200` reads `183 ms`;
    /// `count>=1000` reads `800`.
    static func measured(_ value: Double, key: String, condition: String) -> String {
        guard case .success(let (metric, _)) = ThresholdParser.key(key),
            case .success(let parsed) = ThresholdParser.condition(condition, metric: metric)
        else { return number(value) }
        let text = decisive(value, limit: parsed.value)
        switch (metric.kind, parsed.aggregation) {
        case (.trend, _): return text + " ms"
        case (.rate, _): return text + " (" + significant(value * 100, digits: max(3, text.count - 2)) + " %)"
        case (.counter, .rate): return text + "/s"
        default: return text
        }
    }

    /// `value` with the fewest significant digits (at least three) that keep it on the same side of `limit`, and
    /// distinct from it when it is not equal: a reader can decide the condition from the text alone.
    static func decisive(_ value: Double, limit: Double) -> String {
        guard value.isFinite else { return number(value) }
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        for digits in 3...17 {
            let text = significant(value, digits: digits)
            guard let shown = Double(text) else { break }
            if (shown < limit) == (value < limit) && (shown > limit) == (value > limit) { return text }
        }
        return String(value)
    }
}
