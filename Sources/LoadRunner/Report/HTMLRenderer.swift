import Foundation

/// `report.html`: one self-contained page (inline CSS and SVG, no scripts, no network) rendered from the saved run
/// alone: the verdict first with every threshold, gate and verification; the single-versus-batched bars; then per
/// scenario throughput and latency over time, the HDR percentile distribution and errors over time.
enum HTMLRenderer {
    /// The page of `report`; `views` are `report.views` when the caller has them.
    package static func render(_ report: RunReport, views: [ScenarioView]? = nil) -> String {
        let views = views ?? report.views
        var body: [String] = []
        body.append(
            #"<header><h1>\#(escape(report.plan.name)) <span class="badge \#(report.verdict.passed ? "pass" : "fail")">\#(report.verdict.passed ? "PASS" : "FAIL")</span></h1>"#
        )
        if let description = report.plan.description { body.append("<p>\(escape(description))</p>") }
        body.append("</header>")
        body.append(verdict(report))
        body.append(about(report))
        body.append(summary(views))
        if !report.comparisons.isEmpty { body.append(comparisons(report)) }
        for result in report.capacity { body.append(capacity(result)) }
        for view in views { body.append(scenario(view, report: report)) }
        if !report.notes.isEmpty {
            body.append("<section><h2>Notes</h2><ul>" + report.notes.map { "<li>\(escape($0))</li>" }.joined() + "</ul></section>")
        }
        body.append(
            #"<footer>\#(escape(report.tool.name)) \#(escape(report.tool.version)) · report schema \#(report.schemaVersion) · rendered from report.json alone</footer>"#
        )
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(report.plan.name)): \(report.verdict.passed ? "PASS" : "FAIL")</title>
            <style>\(style)</style></head><body>
            \(body.joined(separator: "\n"))
            </body></html>

            """
    }

    static let style = """
        body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1000px;margin:0 auto;padding:12px;color:#1b1b1b}\
        h1{font-size:1.5em;margin:.3em 0}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}h3{font-size:1.05em}\
        .badge{font-size:.7em;padding:2px 8px;border-radius:4px;color:#fff;vertical-align:middle}.pass{background:#2e7d32}.fail{background:#c62828}\
        table{border-collapse:collapse;margin:.5em 0;font-size:.9em;display:block;overflow-x:auto;max-width:100%;\
        background:linear-gradient(to right,#fff 30%,rgba(255,255,255,0)) left/40px 100% no-repeat local,\
        linear-gradient(to left,#fff 30%,rgba(255,255,255,0)) right/40px 100% no-repeat local,\
        radial-gradient(farthest-side at 0 50%,rgba(0,0,0,.18),rgba(0,0,0,0)) left/12px 100% no-repeat scroll,\
        radial-gradient(farthest-side at 100% 50%,rgba(0,0,0,.18),rgba(0,0,0,0)) right/12px 100% no-repeat scroll}\
        th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}th{vertical-align:bottom;white-space:normal}\
        th:first-child,td:first-child,td.text,th.text{text-align:left}td.text{white-space:normal;min-width:8em;overflow-wrap:anywhere}td.ok{color:#2e7d32}td.bad{color:#c62828;font-weight:600}\
        .charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,440px),1fr));gap:10px}\
        svg.chart{width:100%;height:auto;background:#fafafa;border:1px solid #eee}svg .title{font-size:16px;font-weight:600}\
        svg .tick,svg .legend{font-size:14px;fill:#333}svg .label{font-size:14px;fill:#444}svg .grid{stroke:#e4e4e4}svg .axis{stroke:#888}\
        @media (max-width:600px){body{font-size:14px;padding:8px}table{font-size:.82em}th,td{padding:3px 5px}\
        td:first-child{white-space:normal;overflow-wrap:anywhere;min-width:7em}.bar{max-width:50vw}}\
        .bar{height:18px;background:#1f77b4;display:inline-block;vertical-align:middle}.empty{color:#777;font-style:italic}\
        footer{margin-top:2em;color:#777;font-size:.8em}ul{padding-left:1.2em}\
        @media print{body{max-width:none}.charts{display:block}svg.chart{page-break-inside:avoid;max-width:640px}}
        """

    static func verdict(_ report: RunReport) -> String {
        var rows: [String] = []
        for t in report.thresholds {
            // A count reads as a whole number ("300", not "300.0").
            let measured = t.value.map { Figures.measured($0, key: t.key, condition: t.condition) }
            rows.append(row([t.key, t.condition, measured ?? "no samples"], ok: t.passed))
        }
        for c in report.comparisons {
            rows.append(
                row(
                    ["\(c.candidate) / \(c.baseline) \(c.metric)", c.minRatio.map { "≥ \(number($0))×" } ?? "reported", "\(number(c.ratio))×"],
                    ok: c.passed))
        }
        for record in report.scenarios {
            if let v = record.verification, v.checkedAnything {
                rows.append(
                    row(
                        ["verify \(record.name)", "all \(v.reportedAdded) added features present, no duplicates", "\(v.foundByObjectId) found"],
                        ok: v.passed))
            }
        }
        var out = "<section><h2>Verdict</h2>"
        out +=
            report.verdict.passed
            ? "<p>Every threshold, gate and verification passed.</p>"
            : "<ul>" + report.verdict.failures.map { "<li>\(escape($0))</li>" }.joined() + "</ul>"
        if !rows.isEmpty {
            out += #"<table><tr><th>check</th><th class="text">condition</th><th>measured</th><th>result</th></tr>"# + rows.joined() + "</table>"
        }
        return out + "</section>"
    }

    static func row(_ cells: [String], ok: Bool) -> String {
        "<tr>" + cells.enumerated().map { #"<td class="\#($0.offset < 2 ? "text" : "")">\#(escape($0.element))</td>"# }.joined()
            + #"<td class="\#(ok ? "ok" : "bad")">\#(ok ? "pass" : "FAIL")</td></tr>"#
    }

    static func about(_ report: RunReport) -> String {
        var rows = [
            ("scenario file", "\(report.plan.file) (seed \(report.plan.seed))"),
            ("target", "\(report.target.kind): \(report.target.serviceURL)"),
            ("started", report.startedAt), ("finished", report.finishedAt),
            (
                "machine",
                "\(report.machine.hostname), \(report.machine.cores) cores, \(report.machine.memoryBytes / 1_048_576) MiB, \(report.machine.operatingSystem)"
            ),
        ]
        rows += report.target.notes.map { ("note", $0) }
        rows += report.conditions.map { ($0.label, $0.text) }
        rows.append(("implicit gates", report.plan.gates.summary))
        return "<section><h2>Run</h2><table>" + rows.map { #"<tr><th>\#(escape($0.0))</th><td class="text">\#(escape($0.1))</td></tr>"# }.joined()
            + "</table></section>"
    }

    static func summary(_ views: [ScenarioView]) -> String {
        var out = "<section><h2>Throughput and latency</h2><table><tr><th>scenario</th><th>operation</th><th>requests</th><th>failed</th>"
        out += "<th>edits ok</th><th>edits failed</th><th>req/s</th><th>edits/s</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>max ms</th></tr>"
        for view in views {
            let l = view.latency
            out += #"<tr><td>\#(escape(view.name))</td><td class="text">\#(escape(view.record.operations.map(\.label).joined(separator: ", ")))</td>"#
            out += [view.requests, view.failedRequests, view.editsApplied, view.editsFailed].map { "<td>\($0)</td>" }.joined()
            out += [view.requestsPerSecond, view.editsPerSecond, l.p50, l.p95, l.p99, l.max].map { "<td>\(number($0))</td>" }.joined() + "</tr>"
            guard view.operations.count > 1 else { continue }
            let seconds = max(view.record.durationSeconds, 1e-9)
            for op in view.operations {
                out +=
                    #"<tr><td></td><td class="text">\#(escape(op.label))</td><td>\#(op.requests)</td><td>\#(op.failedRequests)</td><td>\#(op.editsApplied)</td><td>\#(op.editsFailed)</td>"#
                out +=
                    [
                        Double(op.requests) / seconds, Double(op.editsApplied) / seconds, op.latency.p50, op.latency.p95, op.latency.p99,
                        op.latency.max,
                    ]
                    .map { "<td>\(number($0))</td>" }.joined() + "</tr>"
            }
        }
        return out + "</table></section>"
    }

    /// Single versus batched (and any other ratio gate): the two rates as bars, with the speed-up.
    static func comparisons(_ report: RunReport) -> String {
        var out = "<section><h2>Speed-up</h2>"
        for c in report.comparisons {
            let top = max(c.baselineValue, c.candidateValue, 1e-9)
            out += "<h3>\(escape(c.candidate)) vs \(escape(c.baseline)): \(number(c.ratio))× \(escape(c.metric))"
            out += c.minRatio.map { " (required ≥ \(number($0))×: \(c.passed ? "pass" : "FAIL"))" } ?? ""
            out += "</h3><table>"
            for (name, value) in [(c.baseline, c.baselineValue), (c.candidate, c.candidateValue)] {
                let width = max(1, Int((value / top * 400).rounded()))
                out +=
                    #"<tr><td>\#(escape(name))</td><td class="text"><span class="bar" style="width:\#(width)px"></span> \#(number(value))</td></tr>"#
            }
            out += "</table>"
        }
        return out + "</section>"
    }

    /// A sweep: the measured curve (and the fitted Universal Scalability Law), p95 by point, and the table.
    static func capacity(_ result: CapacityResult) -> String {
        var out = "<section><h2>Sweep: \(escape(result.sweep)) (\(escape(result.parameter)))</h2>"
        let xs = result.points.map { Double($0.value) }
        var series = [
            SVGChart.Series(
                name: "measured iterations/s", color: SVGChart.palette[0], points: result.points.map { (Double($0.value), $0.iterationsPerSecond) },
                markers: true)
        ]
        if let fit = result.fit, result.parameter == "vus", let low = xs.min(), let high = xs.max() {
            // The curve runs on to a peak only where the fit names one.
            let top = max(high, min(fit.namedPeakConcurrency ?? high, high * 2))
            let curve = (0...60).map { step -> (x: Double, y: Double) in
                let n = low + (top - low) * Double(step) / 60
                return (n, fit.throughput(at: n))
            }
            let name = fit.peakRefusal == nil ? "USL fit" : String(format: "USL fit (R² %.2f, no peak named)", fit.rSquared)
            series.append(SVGChart.Series(name: name, color: SVGChart.palette[1], points: curve))
        }
        if result.parameter == "batchSize" {
            series.append(
                SVGChart.Series(
                    name: "edits/s", color: SVGChart.palette[2], points: result.points.map { (Double($0.value), $0.editsPerSecond) }, markers: true))
        }
        // Points spread over orders of magnitude (batch sizes 1, 10, 100, 1000) read on a logarithmic axis.
        let logX = (xs.min() ?? 1) > 0 && (xs.max() ?? 1) / (xs.min() ?? 1) >= 100
        var charts = [
            SVGChart(title: "Throughput by \(result.parameter)", xLabel: result.parameter, yLabel: "per second", series: series, logarithmicX: logX)
                .svg
        ]
        var latency = [
            SVGChart.Series(
                name: "p95", color: SVGChart.palette[3], points: result.points.map { (Double($0.value), $0.p95Milliseconds) }, markers: true)
        ]
        if let slo = result.sloMilliseconds, let low = xs.min(), let high = xs.max() {
            // The SLO as a line across the swept range, so the points above it read as over it.
            latency.append(SVGChart.Series(name: "SLO \(number(slo)) ms", color: SVGChart.palette[1], points: [(low, slo), (high, slo)]))
        }
        charts.append(
            SVGChart(
                title: "p95 latency by \(result.parameter)", xLabel: result.parameter, yLabel: "ms", series: latency, logarithmicY: true,
                logarithmicX: logX
            )
            .svg)
        out += #"<div class="charts">"# + charts.joined() + "</div>"
        out +=
            "<table><tr><th>\(escape(result.parameter))</th><th>offered iterations/s</th><th>achieved iterations/s</th><th>dropped</th><th>req/s</th>"
        out += "<th>edits/s</th><th>p95 ms</th><th>X·R ÷ N</th><th>usable</th></tr>"
        for point in result.points {
            let ratio = point.littlesLaw.map { number($0.ratio) + ($0.holds(tolerance: CapacityResult.littlesLawTolerance) ? "" : " (!)") } ?? "–"
            let usable = point.withinSLO == nil ? "–" : point.usable ? "yes" : "no"
            out += "<tr><td>\(point.value)</td><td>\(number(point.offeredPerSecond))</td><td>\(number(point.iterationsPerSecond))</td>"
            out += "<td>\(point.droppedIterations) (\(number(point.droppedShare * 100)) %)</td><td>\(number(point.requestsPerSecond))</td>"
            out += "<td>\(number(point.editsPerSecond))</td><td>\(number(point.p95Milliseconds))</td><td>\(ratio)</td><td>\(usable)</td></tr>"
        }
        out += "</table>"
        // The same sentences as the Markdown report: the fit, the peak, usable capacity.
        let sentences = ReportRenderer.capacityMarkdown(result).split(separator: "\n").filter {
            !$0.hasPrefix("|") && !$0.hasPrefix("#") && !$0.isEmpty
        }
        out += sentences.map { "<p>\(escape(String($0)))</p>" }.joined()
        return out + "</section>"
    }

    static func scenario(_ view: ScenarioView, report: RunReport) -> String {
        var out = "<section><h2>\(escape(view.name))</h2>"
        out +=
            "<p>\(escape(view.record.executor)), \(escape(view.record.settings.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))); "
        out += "stopped: \(escape(view.record.stopReason.rawValue)).</p>"
        let seconds = report.seconds(of: view.name)
        let palette = SVGChart.palette
        var charts: [String] = []
        // Every per-second chart of the scenario spans the same seconds, so a reader can line them up.
        let range = seconds.isEmpty ? nil : Double(seconds.first!.second)...Double(seconds.last!.second)
        // A run of under 2 s has no course over time: its seconds are drawn as bars, which no one reads as a trend.
        let short = view.record.durationSeconds < 2
        if short {
            out += "<p>A run of \(number(view.record.durationSeconds)) s is too short for a time series: its seconds are shown as bars.</p>"
        }
        func chart(_ title: String, yLabel: String, _ series: [SVGChart.Series], logarithmicY: Bool = false) -> String {
            var chart = SVGChart(
                title: title, xLabel: "seconds from the run's start", yLabel: yLabel,
                series: series.map { line in
                    var line = line
                    line.bars = line.bars || short
                    return line
                }, logarithmicY: logarithmicY)
            chart.xRange = range
            return chart.svg
        }
        // Rates over the part of each second the scenario ran, so its first and last (partial) seconds do not dip.
        var throughput = [
            SVGChart.Series(
                name: "requests/s", color: palette[0], points: seconds.compactMap { s in s.rate(s.requests).map { (Double(s.second), $0) } })
        ]
        if view.editsApplied > 0 {
            throughput.append(
                SVGChart.Series(
                    name: "edits/s", color: palette[2], points: seconds.compactMap { s in s.rate(s.edits).map { (Double(s.second), $0) } }))
        }
        charts.append(chart("Throughput per second", yLabel: "per second", throughput))
        let withLatency = seconds.filter { $0.latency.count > 0 }
        let percentiles: [(String, Double)] = [("p50", 50), ("p90", 90), ("p99", 99), ("max", 100)]
        charts.append(
            chart(
                "Request latency per second", yLabel: "ms",
                percentiles.enumerated().map { index, p in
                    SVGChart.Series(
                        name: p.0, color: palette[index + 1],
                        points: withLatency.map { (Double($0.second), Double($0.latency.percentile(p.1)) / 1000) })
                }, logarithmicY: true))
        if view.operations.count > 1 {
            // A mix: each operation's own p95 and throughput, second by second.
            let labels = view.operations.map(\.label)
            func series(_ value: @escaping (SecondTotals) -> Double?) -> [SVGChart.Series] {
                labels.enumerated().map { index, label in
                    SVGChart.Series(
                        name: label, color: palette[index % palette.count],
                        points: report.seconds(of: view.name, operation: label).compactMap { total in value(total).map { (Double(total.second), $0) }
                        })
                }
            }
            charts.append(chart("Requests per second by operation", yLabel: "per second", series { $0.rate($0.requests) }))
            charts.append(
                chart(
                    "p95 latency per second by operation", yLabel: "ms",
                    series { $0.latency.count > 0 ? Double($0.latency.percentile(95)) / 1000 : nil },
                    logarithmicY: true))
        }
        charts.append(distribution(view, report: report))
        // Per second of the scenario's own time, like the throughput: a last, partial second is not a drop.
        charts.append(
            chart(
                "Failures per second", yLabel: "failed requests and edits",
                [
                    SVGChart.Series(
                        name: "failures", color: palette[1], points: seconds.compactMap { s in s.rate(s.failed).map { (Double(s.second), $0) } },
                        bars: true)
                ]))
        out += #"<div class="charts">"# + charts.joined() + "</div>"
        return out + errorsAndNotes(view) + "</section>"
    }

    /// A scenario's errors by kind and its notes (requests cut off, warnings).
    static func errorsAndNotes(_ view: ScenarioView) -> String {
        var out = ""
        if !view.record.errors.isEmpty {
            out += "<h3>Errors by kind</h3><table><tr><th>error</th><th>count</th></tr>"
            for (message, count) in view.record.errors.sorted(by: { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }) {
                out += #"<tr><td class="text">\#(escape(message))</td><td>\#(count)</td></tr>"#
            }
            out += "</table>"
        }
        let notes = (view.cutOffText.map { [$0] } ?? []) + view.record.warnings
        if !notes.isEmpty {
            out += "<ul>" + notes.map { "<li>\(escape($0))</li>" }.joined() + "</ul>"
        }
        return out
    }

    /// The HDR percentile distribution: latency against percentile on the "nines" axis (x = log10(1/(1−p))).
    static func distribution(_ view: ScenarioView, report: RunReport) -> String {
        guard let histogram = report.aggregate(.httpReqDuration, filter: ["scenario": view.name])?.histogram, histogram.count > 0 else {
            return SVGChart(title: "Latency by percentile", xLabel: "percentile", yLabel: "ms", series: []).svg
        }
        let count = Double(histogram.count)
        let deepest = min(5, max(1, log10(count)))
        let steps = 60
        let points = (0...steps).map { step -> (x: Double, y: Double) in
            let nines = deepest * Double(step) / Double(steps)
            let percentile = 100 * (1 - pow(10, -nines))
            return (nines, Double(histogram.percentile(percentile)) / 1000)
        }
        let labels = stride(from: 0.0, through: floor(deepest), by: 1).map { nines -> (x: Double, label: String) in
            (nines, nines == 0 ? "0%" : String(format: "%g%%", 100 * (1 - pow(10, -nines))))
        }
        return SVGChart(
            title: "Latency by percentile (HDR)", xLabel: "percentile", yLabel: "ms",
            series: [SVGChart.Series(name: "http_req_duration", color: SVGChart.palette[3], points: points)], logarithmicY: true,
            xTickLabels: labels
        ).svg
    }

    static func number(_ value: Double) -> String {
        ReportRenderer.number(value)
    }

    /// Text made safe for HTML element content and attribute values: the XML escaping JUnit uses serves HTML too.
    static func escape(_ text: String) -> String {
        JUnitRenderer.escape(text)
    }
}
