import Foundation

/// Renders a ``RunReport`` as a terminal summary table or as Markdown. Pure.
public enum ReportRenderer {
    /// The summary table printed after a run.
    public static func summary(_ report: RunReport) -> String {
        let header = [
            "scenario", "vus", "batch", "requests", "retries", "edits ok", "failed", "req/s", "edits/s", "p50 ms", "p95 ms", "p99 ms",
            "max ms",
        ]
        let rows = report.scenarios.map { result in
            [
                result.name, "\(result.vus)", "\(result.batchSize)", "\(result.metrics.requests)", "\(result.metrics.retries)",
                "\(result.metrics.editsSucceeded)", "\(result.metrics.editsFailed)", number(result.requestsPerSecond),
                number(result.editsPerSecond), number(result.latencyMilliseconds.p50), number(result.latencyMilliseconds.p95),
                number(result.latencyMilliseconds.p99), number(result.latencyMilliseconds.max),
            ]
        }
        var lines = [table(header: header, rows: rows)]
        for comparison in report.comparisons {
            let gate = comparison.minRatio.map { " (required ≥ \(number($0))×: \(comparison.passed ? "pass" : "FAIL"))" } ?? ""
            lines.append(
                "speed-up \(comparison.candidate) vs \(comparison.baseline): \(number(comparison.ratio))× \(comparison.metric)\(gate)")
        }
        for result in report.scenarios {
            if let verification = result.verification {
                let state = verification.passed ? "ok" : "FAILED"
                lines.append(
                    "verify \(result.name): server holds \(verification.foundByObjectId) of \(verification.reportedAdded) added features (layer \(verification.layerCountBefore) → \(verification.layerCountAfter) rows): \(state)"
                )
            }
            for (message, count) in result.metrics.errors.sorted(by: { $0.value > $1.value }).prefix(5) {
                lines.append("  \(result.name) error ×\(count): \(message)")
            }
        }
        lines.append(report.verdict.passed ? "result: PASS" : "result: FAIL\n" + report.verdict.failures.map { "  - \($0)" }.joined(separator: "\n"))
        return lines.joined(separator: "\n")
    }

    /// The Markdown report written beside report.json.
    public static func markdown(_ report: RunReport) -> String {
        var out: [String] = []
        out.append("# \(report.plan.name): \(report.verdict.passed ? "PASS" : "FAIL")")
        out.append("")
        if let description = report.plan.description { out.append(description + "\n") }
        out.append("| | |")
        out.append("|---|---|")
        out.append("| scenario file | `\(report.plan.file)` (seed \(report.plan.seed)) |")
        out.append("| target | \(report.target.kind): `\(report.target.serviceURL)` |")
        out.append("| started | \(report.startedAt) |")
        out.append("| finished | \(report.finishedAt) |")
        out.append(
            "| machine | \(report.machine.hostname), \(report.machine.cores) cores, \(report.machine.memoryBytes / 1_048_576) MiB, \(report.machine.operatingSystem) |"
        )
        out.append("| tool | \(report.tool.name) \(report.tool.version), report schema \(report.schemaVersion) |")
        for note in report.target.notes { out.append("| note | \(note) |") }
        out.append("")
        out.append("## Throughput and latency\n")
        out.append(
            "| scenario | executor | vus | batch | requests | attempts | retries | backoff s | edits ok | applied earlier | edits failed | outcome unknown | req/s | edits/s | p50 ms | p90 ms | p95 ms | p99 ms | max ms | duration s |"
        )
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for result in report.scenarios {
            let l = result.latencyMilliseconds
            out.append(
                "| \(result.name) | \(result.executor) | \(result.vus) | \(result.batchSize) | \(result.metrics.requests) | \(result.metrics.attempts) | \(result.metrics.retries) | \(number(result.metrics.backoffSeconds)) | \(result.metrics.editsSucceeded) | \(result.metrics.editsAppliedByEarlierAttempt) | \(result.metrics.editsFailed) | \(result.metrics.editsUnknown) | \(number(result.requestsPerSecond)) | \(number(result.editsPerSecond)) | \(number(l.p50)) | \(number(l.p90)) | \(number(l.p95)) | \(number(l.p99)) | \(number(l.max)) | \(number(result.durationSeconds)) |"
            )
        }
        if !report.comparisons.isEmpty {
            out.append("\n## Comparisons\n")
            out.append("| candidate | baseline | metric | candidate | baseline | ratio | required | result |")
            out.append("|---|---|---|---:|---:|---:|---:|---|")
            for c in report.comparisons {
                out.append(
                    "| \(c.candidate) | \(c.baseline) | \(c.metric) | \(number(c.candidateValue)) | \(number(c.baselineValue)) | \(number(c.ratio))× | \(c.minRatio.map { "≥ \(number($0))×" } ?? "–") | \(c.passed ? "pass" : "**FAIL**") |"
                )
            }
        }
        let verified = report.scenarios.filter { $0.verification != nil }
        if !verified.isEmpty {
            out.append("\n## Verification (by query, after each scenario)\n")
            out.append("| scenario | adds reported | found by objectId | duplicates | layer rows before | after | result |")
            out.append("|---|---:|---:|---:|---:|---:|---|")
            for result in verified {
                let v = result.verification!
                out.append(
                    "| \(result.name) | \(v.reportedAdded) | \(v.foundByObjectId) | \(v.duplicateObjectIds) | \(v.layerCountBefore) | \(v.layerCountAfter) | \(v.passed ? "ok" : "**FAILED**: " + v.notes.joined(separator: "; ")) |"
                )
            }
        }
        let errors = report.scenarios.flatMap { result in result.metrics.errors.map { (result.name, $0.key, $0.value) } }
        if !errors.isEmpty {
            out.append("\n## Errors\n")
            out.append("| scenario | count | error |")
            out.append("|---|---:|---|")
            for (name, message, count) in errors.sorted(by: { $0.2 > $1.2 }) {
                out.append("| \(name) | \(count) | \(message.replacingOccurrences(of: "|", with: "\\|")) |")
            }
        }
        out.append("\n## Verdict\n")
        if report.verdict.passed {
            out.append("All gates passed.")
        } else {
            out.append(contentsOf: report.verdict.failures.map { "- \($0)" })
        }
        return out.joined(separator: "\n") + "\n"
    }

    static func number(_ value: Double) -> String {
        if value >= 1000 { return String(format: "%.0f", value) }
        if value >= 10 { return String(format: "%.1f", value) }
        return String(format: "%.2f", value)
    }

    static func table(header: [String], rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                return index == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }
}
