package import Foundation

extension RunComparison {
    /// The comparison as Markdown: the verdict and the rows that changed first, every row below.
    package var markdown: String {
        var lines = ["# Comparison: \(regressed ? "REGRESSION" : "no regression")", ""]
        lines.append("Baseline \(MarkdownText.code(baseline)), candidate \(MarkdownText.code(candidate)); tolerance \(Self.percent(tolerance)).")
        lines.append(Self.rule)
        lines.append("")
        if let note = inconclusiveNote { lines += [note, ""] }
        if let differences = conditionDifferences {
            lines += ["The runs were not run alike:"] + differences.map { "- \(MarkdownText.text($0))" } + [""]
        }
        let changed = rows.filter { $0.verdict == .regression || $0.verdict == .improvement }
        if !changed.isEmpty {
            lines += ["| verdict | scenario | operation | metric | baseline | candidate | change |", "|---|---|---|---|---:|---:|---:|"]
            for row in changed {
                lines.append(
                    "| \(row.verdict.rawValue) | \(MarkdownText.text(row.scenario)) | \(MarkdownText.text(row.operation ?? "all")) | \(row.metric) | \(Self.value(row.baseline, row.unit)) | \(Self.value(row.candidate, row.unit)) | \(Self.change(row)) |"
                )
            }
            lines.append("")
        }
        lines += [
            "## Every metric", "", "| scenario | operation | metric | baseline | candidate | change | p | δ | verdict | noise judged by |",
            "|---|---|---|---:|---:|---:|---:|---:|---|---|",
        ]
        for row in rows {
            lines.append(
                "| \(MarkdownText.text(row.scenario)) | \(MarkdownText.text(row.operation ?? "all")) | \(row.metric) | \(Self.value(row.baseline, row.unit)) | \(Self.value(row.candidate, row.unit)) | \(Self.change(row)) | \(Self.p(row)) | \(Self.delta(row)) | \(row.verdict.rawValue) | \(row.basis) |"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The comparison as JUnit XML: a test suite per scenario, a test case per metric, regressions as failures.
    package var junit: String {
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let failures = rows.filter { $0.verdict == .regression }.count
        out += #"<testsuites name="featureload compare" tests="\#(rows.count)" failures="\#(failures)">"# + "\n"
        var order: [String] = []
        for row in rows where !order.contains(row.scenario) { order.append(row.scenario) }
        for scenario in order {
            let cases = rows.filter { $0.scenario == scenario }
            let failed = cases.filter { $0.verdict == .regression }.count
            out += #"  <testsuite name="\#(JUnitRenderer.escape(scenario))" tests="\#(cases.count)" failures="\#(failed)">"# + "\n"
            for row in cases {
                let name = JUnitRenderer.escape("\(row.operation.map { $0 + " " } ?? "")\(row.metric)")
                let message = JUnitRenderer.escape(
                    "\(row.metric) \(Self.value(row.baseline, row.unit)) → \(Self.value(row.candidate, row.unit)) (\(Self.change(row))), beyond the tolerance \(Self.percent(tolerance)) and the noise"
                )
                if row.verdict == .regression {
                    out +=
                        #"    <testcase name="\#(name)" classname="\#(JUnitRenderer.escape(scenario))"><failure message="\#(message)" type="regression">\#(message)</failure></testcase>"#
                        + "\n"
                } else {
                    out += #"    <testcase name="\#(name)" classname="\#(JUnitRenderer.escape(scenario))"/>"# + "\n"
                }
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    /// The comparison as a self-contained HTML page: the verdict and every row.
    package var html: String {
        var out = #"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">"#
        // Wider than a run's page, its ten columns side by side; words wrap between words, never inside one.
        let wide = "body{max-width:1400px}td.text{overflow-wrap:normal;word-break:normal;min-width:6em}"
        out += "<title>Comparison: \(regressed ? "REGRESSION" : "no regression")</title><style>\(HTMLRenderer.style)\(wide)</style></head><body>"
        out += #"<h1>Comparison <span class="badge \#(regressed ? "fail" : "pass")">\#(regressed ? "REGRESSION" : "no regression")</span></h1>"#
        out +=
            "<p>Baseline <code>\(HTMLRenderer.escape(baseline))</code>, candidate <code>\(HTMLRenderer.escape(candidate))</code>; tolerance \(Self.percent(tolerance)). "
        out += HTMLRenderer.escape(Self.rule) + "</p>"
        if let note = inconclusiveNote { out += "<p>\(HTMLRenderer.escape(note))</p>" }
        if let differences = conditionDifferences {
            out += "<p>The runs were not run alike:</p><ul>" + differences.map { "<li>\(HTMLRenderer.escape($0))</li>" }.joined() + "</ul>"
        }
        // What changed first, as the Markdown has it; then every row.
        let changed = rows.filter { $0.verdict == .regression || $0.verdict == .improvement }
        if !changed.isEmpty {
            out +=
                "<h2>What changed</h2><table><tr><th>verdict</th><th>scenario</th><th>operation</th><th>metric</th><th>baseline</th><th>candidate</th><th>change</th></tr>"
            for row in changed {
                out +=
                    #"<tr><td class="\#(row.verdict == .regression ? "bad" : "ok")">\#(row.verdict.rawValue)</td><td class="text">\#(HTMLRenderer.escape(row.scenario))</td>"#
                out += #"<td class="text">\#(HTMLRenderer.escape(row.operation ?? "all"))</td><td class="text">\#(row.metric)</td>"#
                out +=
                    "<td>\(Self.value(row.baseline, row.unit))</td><td>\(Self.value(row.candidate, row.unit))</td><td>\(Self.change(row))</td></tr>"
            }
            out += "</table>"
        }
        out +=
            "<h2>Every metric</h2><table><tr><th>scenario</th><th>operation</th><th>metric</th><th>baseline</th><th>candidate</th><th>change</th><th>p</th><th>δ</th><th>verdict</th><th>noise judged by</th></tr>"
        for row in rows {
            let style = row.verdict == .regression ? "bad" : row.verdict == .improvement ? "ok" : "text"
            out +=
                #"<tr><td>\#(HTMLRenderer.escape(row.scenario))</td><td class="text">\#(HTMLRenderer.escape(row.operation ?? "all"))</td><td class="text">\#(row.metric)</td>"#
            out +=
                "<td>\(Self.value(row.baseline, row.unit))</td><td>\(Self.value(row.candidate, row.unit))</td><td>\(Self.change(row))</td><td>\(Self.p(row))</td><td>\(Self.delta(row))</td>"
            out += #"<td class="\#(style)">\#(row.verdict.rawValue)</td><td class="text">\#(HTMLRenderer.escape(row.basis))</td></tr>"#
        }
        return out + "</table></body></html>\n"
    }

    /// The comparison as JSON (sorted keys, pretty).
    package func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// How a change is judged, in one sentence.
    static let rule =
        "A change counts when it exceeds the tolerance and the runs' own noise: significant at 1 % and a large effect "
        + "(|Cliff's δ| ≥ \(largeEffect)). "
        + "Where too few seconds make 1 % unreachable, throughput with a fixed number of VUs is judged on the iterations' "
        + "durations, and otherwise by the tolerance alone."

    /// What the inconclusive rows mean, when there are any.
    var inconclusiveNote: String? {
        let count = rows.filter { $0.verdict == .inconclusive }.count
        guard count > 0 else { return nil }
        return "\(count) change\(count == 1 ? " is" : "s are") inconclusive: the runs were too short "
            + "to tell a change in throughput from the machine's noise. Run the scenarios longer (a `duration`) to judge it."
    }

    static func p(_ row: Row) -> String {
        row.pValue.map(pText) ?? "–"
    }

    static func delta(_ row: Row) -> String {
        row.effectSize.map { String(format: "%+.2f", $0) } ?? "–"
    }

    static func value(_ value: Double, _ unit: String) -> String {
        switch unit {
        case "rate": return percent(value)
        case "ms": return String(format: value < 10 ? "%.2f ms" : "%.1f ms", value)
        default: return String(format: value < 100 ? "%.1f" : "%.0f", value) + " " + unit
        }
    }

    static func change(_ row: Row) -> String {
        if row.unit == "rate" { return (row.change >= 0 ? "+" : "") + String(format: "%.2f", row.change * 100) + " points" }
        guard row.change.isFinite else { return "new" }
        return (row.change >= 0 ? "+" : "") + percent(row.change)
    }
}
