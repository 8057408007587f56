import Foundation

/// What a CI system shows of a run beside its log: the job summary (GitHub Actions' `$GITHUB_STEP_SUMMARY`) and one
/// annotation line per failure. Pure: the CLI writes and prints what these return.
package enum CISummary {
    /// The sections of report.md a job summary shows: the title with the verdict, and Verdict, Thresholds, the
    /// throughput and latency table (with capacity, when swept) and Comparisons; then where the reports are.
    package static func markdown(_ report: RunReport, reportFolder: String) -> String {
        let kept: Set<String> = ["Verdict", "Thresholds", "Throughput and latency", "Comparisons"]
        var out: [String] = []
        // nil before the first heading: the title's table of file, target and machine, which the job already shows.
        var section: String?
        for line in ReportRenderer.markdown(report).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# ") {
                out += [String(line), ""]
                continue
            }
            if line.hasPrefix("## ") { section = String(line.dropFirst(3)) }
            if let section, kept.contains(section) { out.append(String(line)) }
        }
        while out.last?.isEmpty == true { out.removeLast() }
        return out.joined(separator: "\n") + "\n\nReports: \(MarkdownText.code(reportFolder))\n\n"
    }

    /// A GitHub Actions workflow command that marks `message` as an error in the run's annotations:
    /// `::error title=…::…`, with the characters the runner reads as syntax escaped as its toolkit does.
    static func githubError(title: String, message: String) -> String {
        "::error title=\(escapeProperty(title))::\(escapeData(message))"
    }

    /// A GitLab job log line in its error colour (GitLab has no annotation command: failing thresholds reach a merge
    /// request through report.junit.xml under `artifacts:reports:junit`).
    static func gitlabError(_ message: String) -> String {
        "\u{1B}[31;1mERROR: \(message.replacingOccurrences(of: "\n", with: " "))\u{1B}[0m"
    }

    /// The annotation lines for a run in the CI that `environment` describes: one per failure of the verdict on
    /// GitHub Actions (`GITHUB_ACTIONS=true`) or GitLab CI (`GITLAB_CI`), none elsewhere or when the run passed.
    package static func annotations(_ report: RunReport, environment: [String: String]) -> [String] {
        guard !report.verdict.passed else { return [] }
        if environment["GITHUB_ACTIONS"] == "true" {
            let title = "featureload: \(report.plan.name) failed"
            return report.verdict.failures.map { githubError(title: title, message: $0) }
        }
        if environment["GITLAB_CI"] != nil {
            return report.verdict.failures.map { gitlabError("featureload: \(report.plan.name): \($0)") }
        }
        return []
    }

    static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
