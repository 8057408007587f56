import Foundation

/// Renders a ``RunReport`` as a terminal summary table or as Markdown. Pure.
package enum ReportRenderer {
    /// The summary table printed after a run.
    package static func summary(_ report: RunReport) -> String {
        let views = report.views
        let header = [
            "scenario", "vus", "batch", "requests", "req failed", "retries", "edits ok", "edits failed", "req/s", "edits/s", "p50 ms", "p95 ms",
            "p99 ms", "max ms",
        ]
        var rows: [[String]] = []
        for view in views {
            let vus = report.aggregate(.vusMax, filter: ["scenario": view.name])?.value.map { String(Int($0)) } ?? settingsVUs(view.record)
            rows.append(
                row(view.name, vus: vus, batch: view.record.operations.count == 1 ? batch(view.record.operations[0].editsPerIteration) : "mix", view))
            if view.operations.count > 1 {
                for op in view.operations {
                    rows.append([
                        "  " + op.label, "", batch(view.record.operations.first { $0.label == op.label }?.editsPerIteration ?? 0), "\(op.requests)",
                        "\(op.failedRequests)", "",
                        "\(op.editsApplied)", "\(op.editsFailed)", number(Double(op.requests) / max(view.record.durationSeconds, 1e-9)),
                        number(Double(op.editsApplied) / max(view.record.durationSeconds, 1e-9)), number(op.latency.p50), number(op.latency.p95),
                        number(op.latency.p99), number(op.latency.max),
                    ])
                }
            }
        }
        var lines = [table(header: header, rows: rows)]
        for comparison in report.comparisons {
            let gate = comparison.minRatio.map { " (required ≥ \(number($0))×: \(comparison.passed ? "pass" : "FAIL"))" } ?? ""
            lines.append("speed-up \(comparison.candidate) vs \(comparison.baseline): \(number(comparison.ratio))× \(comparison.metric)\(gate)")
        }
        for threshold in report.thresholds {
            let measured = threshold.value.map { Figures.measured($0, key: threshold.key, condition: threshold.condition) } ?? "no samples"
            lines.append("threshold \(threshold.key): \(threshold.condition) — measured \(measured): \(threshold.passed ? "pass" : "FAIL")")
        }
        for view in views {
            if view.droppedIterations > 0 { lines.append("\(view.name): \(view.droppedIterations) iterations dropped (no free VU)") }
            if let cutOff = view.cutOffText { lines.append("\(view.name): \(cutOff)") }
            if view.editsInvalid > 0 { lines.append("\(view.name): \(view.editsInvalid) edits refused by client-side validation, not sent") }
            if let v = view.record.verification, v.checkedAnything { lines.append(verificationLine(view.name, v)) }
            for (message, count) in view.record.errors.sorted(by: { $0.value > $1.value }).prefix(5) {
                lines.append("  \(view.name) error ×\(count): \(message)")
            }
        }
        for result in report.capacity {
            if let verdict = result.verdict { lines.append("sweep \(result.sweep): \(verdict)") }
        }
        for note in report.notes { lines.append("note: \(note)") }
        for row in report.conditions { lines.append("\(row.label): \(row.text)") }
        lines.append("implicit gates: \(report.plan.gates.summary)")
        lines.append(report.verdict.passed ? "result: PASS" : "result: FAIL\n" + report.verdict.failures.map { "  - \($0)" }.joined(separator: "\n"))
        return lines.joined(separator: "\n")
    }

    static func verificationLine(_ name: String, _ v: ScenarioVerification) -> String {
        let state = v.passed ? "ok" : "FAILED"
        var text = "verify \(name): server holds \(v.foundByObjectId) of \(v.reportedAdded) added features"
        if let before = v.layerCountBefore, let after = v.layerCountAfter { text += " (layer \(before) → \(after) rows)" }
        if let reported = v.globalIdsReported, let found = v.globalIdsFound { text += ", \(found) rows for \(reported) client GlobalIDs" }
        if let unknown = v.unknownOutcomes { text += ", \(v.unknownFoundApplied ?? 0) of \(unknown) unknown-outcome adds were applied" }
        if let still = v.deletedStillPresent { text += ", \(still) deleted still present" }
        return text + ": " + state + (v.passed ? "" : " — " + v.notes.joined(separator: "; "))
    }

    static func settingsVUs(_ record: ScenarioRecord) -> String {
        record.settings["vus"] ?? record.settings["maxVUs"] ?? record.settings["startVUs"] ?? "-"
    }

    private static func row(_ name: String, vus: String, batch: String, _ view: ScenarioView) -> [String] {
        [
            name, vus, batch, "\(view.requests)", "\(view.failedRequests)", "\(view.retries)", "\(view.editsApplied)", "\(view.editsFailed)",
            number(view.requestsPerSecond),
            number(view.editsPerSecond), number(view.latency.p50), number(view.latency.p95), number(view.latency.p99), number(view.latency.max),
        ]
    }

    /// The Markdown report written beside report.json; `views` are `report.views` when the caller has them.
    package static func markdown(_ report: RunReport, views: [ScenarioView]? = nil) -> String {
        let views = views ?? report.views
        var out: [String] = []
        out.append("# \(MarkdownText.text(report.plan.name)): \(report.verdict.passed ? "PASS" : "FAIL")")
        out.append("")
        if let description = report.plan.description { out.append(description + "\n") }
        out.append("| | |")
        out.append("|---|---|")
        out.append("| scenario file | \(MarkdownText.code(report.plan.file)) (seed \(report.plan.seed)) |")
        out.append("| target | \(report.target.kind): \(MarkdownText.code(report.target.serviceURL)) |")
        out.append("| started | \(report.startedAt) |")
        out.append("| finished | \(report.finishedAt) |")
        out.append(
            "| machine | \(report.machine.hostname), \(report.machine.cores) cores, \(report.machine.memoryBytes / 1_048_576) MiB, \(report.machine.operatingSystem) |"
        )
        out.append("| tool | \(report.tool.name) \(report.tool.version), report schema \(report.schemaVersion) |")
        for note in report.target.notes { out.append("| note | \(MarkdownText.text(note)) |") }
        for row in report.conditions { out.append("| \(row.label) | \(MarkdownText.text(row.text)) |") }
        out.append("| implicit gates | \(MarkdownText.text(report.plan.gates.summary)) |")
        out.append("")
        if !report.verdict.failures.isEmpty || !report.thresholds.isEmpty {
            out.append("## Verdict\n")
            out.append(
                report.verdict.passed
                    ? "All thresholds and gates passed." : report.verdict.failures.map { "- \(MarkdownText.text($0))" }.joined(separator: "\n"))
            out.append("")
        }
        if !report.thresholds.isEmpty {
            out.append("## Thresholds\n")
            out.append("| metric | condition | measured | result |")
            out.append("|---|---|---:|---|")
            for t in report.thresholds {
                let measured = t.value.map { Figures.measured($0, key: t.key, condition: t.condition) } ?? "no samples"
                out.append("| \(MarkdownText.code(t.key)) | \(MarkdownText.code(t.condition)) | \(measured) | \(t.passed ? "pass" : "**FAIL**") |")
            }
            out.append("")
        }
        out.append("## Throughput and latency\n")
        out.append(
            "| scenario | operation | executor | requests | failed requests | retries | backoff s | edits ok | applied earlier | edits failed | edits invalid | outcome unknown | dropped | req/s | edits/s | p50 ms | p90 ms | p95 ms | p99 ms | max ms | duration s |"
        )
        out.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for view in views {
            let l = view.latency
            let r = view.record
            out.append(
                "| \(MarkdownText.text(view.name)) | \(MarkdownText.text(r.operations.map(\.label).joined(separator: ", "))) | \(r.executor) | \(view.requests) | \(view.failedRequests) | \(view.retries) | \(number(r.backoffSeconds)) | \(view.editsApplied) | \(r.editsAppliedByEarlierAttempt) | \(view.editsFailed) | \(view.editsInvalid) | \(view.editsUnknown) | \(view.droppedIterations) | \(number(view.requestsPerSecond)) | \(number(view.editsPerSecond)) | \(number(l.p50)) | \(number(l.p90)) | \(number(l.p95)) | \(number(l.p99)) | \(number(l.max)) | \(number(r.durationSeconds)) |"
            )
            if view.operations.count > 1 {
                for op in view.operations {
                    let seconds = max(r.durationSeconds, 1e-9)
                    out.append(
                        "| | \(MarkdownText.text(op.label)) | | \(op.requests) | \(op.failedRequests) | | | \(op.editsApplied) | | \(op.editsFailed) | \(op.editsInvalid) | | | \(number(Double(op.requests) / seconds)) | \(number(Double(op.editsApplied) / seconds)) | \(number(op.latency.p50)) | \(number(op.latency.p90)) | \(number(op.latency.p95)) | \(number(op.latency.p99)) | \(number(op.latency.max)) | |"
                    )
                }
            }
        }
        let cutOff = views.compactMap { view in view.cutOffText.map { "- \(MarkdownText.text(view.name)): \($0)" } }
        if !cutOff.isEmpty { out += [""] + cutOff }
        for result in report.capacity { out.append(capacityMarkdown(result)) }
        out.append("\n## Executors\n")
        out.append("| scenario | executor | settings | started s | stopped because |")
        out.append("|---|---|---|---:|---|")
        for r in report.scenarios {
            let settings = r.settings.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            out.append(
                "| \(MarkdownText.text(r.name)) | \(r.executor) | \(MarkdownText.text(settings)) | \(number(r.startSeconds)) | \(r.stopReason.rawValue) |"
            )
        }
        if !report.comparisons.isEmpty {
            out.append("\n## Comparisons\n")
            out.append("| candidate | baseline | metric | candidate | baseline | ratio | required | result |")
            out.append("|---|---|---|---:|---:|---:|---:|---|")
            for c in report.comparisons {
                out.append(
                    "| \(MarkdownText.text(c.candidate)) | \(MarkdownText.text(c.baseline)) | \(c.metric) | \(number(c.candidateValue)) | \(number(c.baselineValue)) | \(number(c.ratio))× | \(c.minRatio.map { "≥ \(number($0))×" } ?? "–") | \(c.passed ? "pass" : "**FAIL**") |"
                )
            }
        }
        let verified = report.scenarios.compactMap { r in r.verification.map { (r.name, $0) } }
        if !verified.isEmpty {
            out.append("\n## Verification (by query, after each scenario)\n")
            for (name, v) in verified { out.append("- " + MarkdownText.text(verificationLine(name, v))) }
        }
        let errors = report.scenarios.flatMap { r in r.errors.map { (r.name, $0.key, $0.value) } }
        if !errors.isEmpty {
            out.append("\n## Errors\n")
            out.append("| scenario | count | error |")
            out.append("|---|---:|---|")
            for (name, message, count) in errors.sorted(by: { $0.2 > $1.2 }) {
                out.append("| \(MarkdownText.text(name)) | \(count) | \(MarkdownText.text(message)) |")
            }
        }
        if !report.notes.isEmpty {
            out.append("\n## Notes\n")
            out.append(contentsOf: report.notes.map { "- \(MarkdownText.text($0))" })
        }
        if report.thresholds.isEmpty && report.verdict.failures.isEmpty {
            out.append("\n## Verdict\n")
            out.append("All gates passed.")
        }
        return out.joined(separator: "\n") + "\n"
    }

    static func number(_ value: Double) -> String {
        Figures.number(value)
    }

    /// The batch column: edits per iteration, or a dash for an operation that edits nothing (a query).
    static func batch(_ editsPerIteration: Int) -> String {
        editsPerIteration > 0 ? "\(editsPerIteration)" : "–"
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

    /// A sweep's points and, for concurrency sweeps, the Universal Scalability Law fitted to them.
    static func capacityMarkdown(_ result: CapacityResult) -> String {
        var out = ["\n## Sweep: \(MarkdownText.text(result.sweep)) (\(result.parameter))\n"]
        let drops = result.points.contains { $0.droppedIterations > 0 } || result.parameter == "rate"
        var header = "| \(result.parameter) |"
        var rule = "|---:|"
        if drops {
            header += " offered iterations/s | achieved iterations/s | dropped |"
            rule += "---:|---:|---:|"
        } else {
            header += " iterations/s |"
            rule += "---:|"
        }
        header += " req/s | edits/s | p95 ms | mean iteration ms | failed |"
        rule += "---:|---:|---:|---:|---:|"
        let littles = result.points.contains { $0.littlesLaw != nil }
        if littles {
            header += " X·R | X·R ÷ N |"
            rule += "---:|---:|"
        }
        if result.sloMilliseconds != nil {
            header += " usable |"
            rule += "---|"
        }
        out += [header, rule]
        for point in result.points {
            var row = "| \(point.value) |"
            if drops {
                row +=
                    " \(number(point.offeredPerSecond)) | \(number(point.iterationsPerSecond)) | \(point.droppedIterations) (\(number(point.droppedShare * 100)) %) |"
            } else {
                row += " \(number(point.iterationsPerSecond)) |"
            }
            row +=
                " \(number(point.requestsPerSecond)) | \(number(point.editsPerSecond)) | \(number(point.p95Milliseconds)) | \(number(point.meanIterationSeconds * 1000)) | \(point.failedRequests) |"
            if littles {
                if let check = point.littlesLaw {
                    row +=
                        " \(number(check.busy)) | \(number(check.ratio))\(check.holds(tolerance: CapacityResult.littlesLawTolerance) ? "" : " (!)") |"
                } else {
                    row += " | |"
                }
            }
            if let within = point.withinSLO {
                row += point.usable ? " yes |" : within ? " no: \(number(point.droppedShare * 100)) % dropped |" : " no: p95 over the SLO |"
            }
            out.append(row)
        }
        if littles {
            out.append("")
            out.append(
                "Little's law: N ≈ X·R (X requests/s, R their mean time, so X·R is the requests in flight on average). A ratio X·R ÷ N more than \(number(CapacityResult.littlesLawTolerance * 100)) % from 1 (marked (!)) means the VUs spent time outside the service's requests: the generator, think time or the network, not the service, limited that point."
            )
        }
        if let fit = result.fit {
            out.append("")
            out.append(
                "Universal Scalability Law X(N) = λN / (1 + σ(N−1) + κN(N−1)), fitted to these points: λ = \(number(fit.lambda)) iterations/s, σ = \(String(format: "%.4f", fit.sigma)), κ = \(String(format: "%.6f", fit.kappa)), R² = \(String(format: "%.3f", fit.rSquared))."
            )
            if let refusal = fit.peakRefusal {
                out.append("No peak or ceiling named: \(refusal). Measure more points, or longer ones, around the knee.")
            } else if let peak = fit.peakConcurrency, let top = fit.peakThroughput {
                out.append("Peak at N* = √((1−σ)/κ) = \(number(peak)) with \(number(top)) iterations/s predicted.")
            } else if let ceiling = fit.peakThroughput {
                out.append("No peak in the fitted range (κ = 0): throughput levels off towards λ/σ = \(number(ceiling)) iterations/s.")
            } else {
                out.append("The points scale linearly: no limit in sight in the measured range.")
            }
        } else if result.parameter != "batchSize" {
            out.append("\nNo scalability fit: it needs at least three points with throughput.")
        }
        if let verdict = result.verdict { out.append(verdict) }
        return out.joined(separator: "\n")
    }
}
