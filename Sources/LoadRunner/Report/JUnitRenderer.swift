import Foundation

/// Renders a ``RunReport``'s gates as JUnit XML, the format CI test views read (Jenkins, GitLab, GitHub reporters).
/// Pure.
///
/// One `<testsuite>` per scenario, holding a `<testcase>` for each threshold that names the scenario in a tag
/// filter, its failed-edit gate and its verification; one `<testsuite name="run">` for run-wide thresholds and
/// speed-up comparisons. A failed gate is a `<failure>` whose message has the measured value and the limit.
/// Times are the scenarios' durations.
package enum JUnitRenderer {
    struct Case {
        var name: String
        var className: String
        var failure: String?
        var detail: String
    }

    struct Suite {
        var name: String
        var seconds: Double
        var cases: [Case]
        /// Text for the suite's own `<system-out>`: what the scenario cut off at its end.
        var output: String?
    }

    /// The JUnit XML of `report`; `views` are `report.views` when the caller has them.
    package static func render(_ report: RunReport, views: [ScenarioView]? = nil) -> String {
        xml(suites(of: report, views: views), report: report)
    }

    /// The gates of `report` as suites of cases: one suite per scenario (run or never started), then one for the run.
    static func suites(of report: RunReport, views: [ScenarioView]? = nil) -> [Suite] {
        var suites: [Suite] = []
        let views = views ?? report.views
        var claimed: Set<String> = []
        for view in views {
            let className = "\(report.plan.name).\(view.name)"
            var cases: [Case] = []
            for threshold in report.thresholds where scenario(of: threshold.key) == view.name {
                claimed.insert(threshold.key + threshold.condition)
                cases.append(thresholdCase(threshold, className: className))
            }
            cases += scenarioCases(view, className: className, gates: report.plan.gates)
            suites.append(Suite(name: view.name, seconds: view.record.durationSeconds, cases: cases, output: view.cutOffText))
        }
        // A planned scenario that never started (the run was interrupted or aborted first) is a failed case, not a
        // silent gap in the CI test view.
        for name in report.plan.scenarioNames ?? [] where !views.contains(where: { $0.name == name }) {
            let className = "\(report.plan.name).\(name)"
            var cases = [Case(name: "ran", className: className, failure: "never started: the run ended before this scenario began", detail: "")]
            for threshold in report.thresholds where scenario(of: threshold.key) == name {
                claimed.insert(threshold.key + threshold.condition)
                cases.append(thresholdCase(threshold, className: className))
            }
            suites.append(Suite(name: name, seconds: 0, cases: cases))
        }
        var runCases: [Case] = []
        for threshold in report.thresholds where !claimed.contains(threshold.key + threshold.condition) {
            runCases.append(thresholdCase(threshold, className: "\(report.plan.name).run"))
        }
        for comparison in report.comparisons {
            let name =
                "speed-up \(comparison.candidate) vs \(comparison.baseline) (\(comparison.metric))"
                + (comparison.minRatio.map { " ≥ \(number($0))×" } ?? "")
            let measured = "\(number(comparison.ratio))× (\(number(comparison.candidateValue)) vs \(number(comparison.baselineValue)))"
            runCases.append(
                Case(
                    name: name, className: "\(report.plan.name).run",
                    failure: comparison.passed ? nil : "measured \(measured), below the required \(number(comparison.minRatio ?? 0))×",
                    detail: measured))
        }
        if !runCases.isEmpty || suites.isEmpty { suites.append(Suite(name: "run", seconds: report.durationSeconds, cases: runCases)) }
        return suites
    }

    /// A scenario's own gates: its failed-edit and failed-request rates, its verification, and whether it ran to the end.
    static func scenarioCases(_ view: ScenarioView, className: String, gates: ScenarioGates) -> [Case] {
        var cases = gates.checks(view).map { Case(name: $0.name, className: className, failure: $0.failure, detail: $0.detail) }
        if let verification = view.record.verification, verification.checkedAnything {
            cases.append(
                Case(
                    name: "verification: the service holds the run's own features", className: className,
                    failure: verification.passed ? nil : verification.notes.joined(separator: "; "),
                    detail: "\(verification.foundByObjectId) of \(verification.reportedAdded) added features found"))
        }
        if view.record.stopReason == .cancelled {
            cases.append(Case(name: "ran to the end", className: className, failure: "interrupted before the scenario ended", detail: ""))
        }
        return cases
    }

    /// The XML document of `suites`.
    static func xml(_ suites: [Suite], report: RunReport) -> String {
        let total = suites.reduce(0) { $0 + $1.cases.count }
        let failures = suites.reduce(0) { $0 + $1.cases.filter { $0.failure != nil }.count }
        let properties = self.properties(of: report)
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml +=
            #"<testsuites name="\#(escape(report.plan.name))" tests="\#(total)" failures="\#(failures)" errors="0" time="\#(seconds(report.durationSeconds))">"#
            + "\n"
        for suite in suites {
            let failed = suite.cases.filter { $0.failure != nil }.count
            xml +=
                #"  <testsuite name="\#(escape(suite.name))" tests="\#(suite.cases.count)" failures="\#(failed)" errors="0" skipped="0" time="\#(seconds(suite.seconds))" timestamp="\#(escape(String(report.startedAt.prefix(19))))">"#
                + "\n"
            xml += properties
            for testCase in suite.cases {
                xml += #"    <testcase name="\#(escape(testCase.name))" classname="\#(escape(testCase.className))" time="0">"#
                if let failure = testCase.failure {
                    xml += "\n" + #"      <failure message="\#(escape(failure))" type="gate">\#(escape(failure))</failure>"# + "\n"
                    xml += "      <system-out>\(escape(testCase.detail))</system-out>\n    "
                } else if !testCase.detail.isEmpty {
                    xml += "\n      <system-out>\(escape(testCase.detail))</system-out>\n    "
                }
                xml += "</testcase>\n"
            }
            if let output = suite.output { xml += "    <system-out>\(escape(output))</system-out>\n" }
            xml += "  </testsuite>\n"
        }
        xml += "</testsuites>\n"
        return xml
    }

    /// Each suite's `<properties>`: the run's tags (`run --tag`), one property each under its own name, and the
    /// command line's overrides as `featureload.overrides`, so CI test views tell runs apart; empty without either.
    static func properties(of report: RunReport) -> String {
        var pairs = (report.tags ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if let overrides = report.overrides, !overrides.isEmpty { pairs.append(("featureload.overrides", overrides.summary)) }
        guard !pairs.isEmpty else { return "" }
        let lines = pairs.map { #"      <property name="\#(escape($0.0))" value="\#(escape($0.1))"/>"# + "\n" }
        return "    <properties>\n" + lines.joined() + "    </properties>\n"
    }

    private static func thresholdCase(_ threshold: ThresholdResult, className: String) -> Case {
        let measured = threshold.value.map { Figures.measured($0, key: threshold.key, condition: threshold.condition) } ?? "no samples"
        return Case(
            name: "threshold \(threshold.key): \(threshold.condition)", className: className,
            failure: threshold.passed ? nil : "\(threshold.key): \(threshold.condition) failed, measured \(measured)",
            detail: "measured \(measured)")
    }

    /// The scenario a threshold key filters on (`metric{scenario:NAME,…}`), if any.
    static func scenario(of key: String) -> String? {
        guard let open = key.firstIndex(of: "{"), key.hasSuffix("}") else { return nil }
        for pair in key[key.index(after: open)..<key.index(before: key.endIndex)].split(separator: ",") {
            let parts = pair.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 && parts[0] == "scenario" { return parts[1] }
        }
        return nil
    }

    /// XML text with the five predefined entities, and control characters (not allowed in XML 1.0) dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }
    private static func number(_ value: Double) -> String {
        Figures.number(value)
    }
}
