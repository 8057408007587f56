import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// A run inside GitHub Actions and GitLab CI, through the binary: the job summary and the annotation lines.
@Suite struct CISummaryCommandTests {
    static func scenario(threshold: String) -> String {
        """
        version: 2
        name: gate
        target: local
        scenarios:
          single:
            executor: shared-iterations
            vus: 2
            iterations: 20
            exec: applyEdits
            adds: 1
        thresholds:
          edits: ["\(threshold)"]
        """
    }

    @Test(
        "on GitHub Actions a failing gate appends its verdict, thresholds and table to the step summary and prints ::error", .timeLimit(.minutes(2)))
    func githubActions() async throws {
        let directory = try TemporaryDirectory()
        let summary = directory.path + "/summary.md"
        try "## Earlier step\n".write(toFile: summary, atomically: true, encoding: .utf8)
        let file = directory.path + "/gate.yaml"
        try Self.scenario(threshold: "count>1000").write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Featureload.run(
            ["run", file, "--out", directory.path + "/out", "--formats", "md"],
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary])
        let output = "\(result.output)\n\(result.errorOutput)"
        #expect(result.status == 1, Comment(rawValue: output))
        let text = try String(contentsOfFile: summary, encoding: .utf8)
        #expect(text.hasPrefix("## Earlier step\n"), "the summary is appended to, not replaced")
        #expect(text.contains("# gate: FAIL"), Comment(rawValue: text))
        #expect(text.contains("## Thresholds") && text.contains("count>1000") && text.contains("**FAIL**"), Comment(rawValue: text))
        #expect(text.contains("## Throughput and latency") && text.contains("| single |"), Comment(rawValue: text))
        #expect(!text.contains("## Executors") && !text.contains("| machine |"), Comment(rawValue: text))
        let folder = try CommandLineTests.folder(from: result.output)
        #expect(text.contains(folder), Comment(rawValue: text))
        let annotations = result.output.split(separator: "\n").filter { $0.hasPrefix("::error ") }
        #expect(annotations.count == 1, Comment(rawValue: result.output))
        #expect(annotations.first?.hasPrefix("::error title=featureload%3A gate failed::threshold edits") == true, Comment(rawValue: result.output))
        #expect(annotations.first?.contains("count>1000") == true)
    }

    @Test("a passing run appends PASS and prints no annotation; GitLab CI gets its error lines", .timeLimit(.minutes(2)))
    func passingAndGitLab() async throws {
        let directory = try TemporaryDirectory()
        let summary = directory.path + "/summary.md"
        let file = directory.path + "/gate.yaml"
        try Self.scenario(threshold: "count==20").write(toFile: file, atomically: true, encoding: .utf8)
        let passed = try await Featureload.run(
            ["run", file, "--out", directory.path + "/out", "--formats", "md"],
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary])
        #expect(passed.status == 0, Comment(rawValue: "\(passed.output)\n\(passed.errorOutput)"))
        #expect(try String(contentsOfFile: summary, encoding: .utf8).contains("# gate: PASS"))
        #expect(!passed.output.contains("::error"))

        try Self.scenario(threshold: "count>1000").write(toFile: file, atomically: true, encoding: .utf8)
        let failed = try await Featureload.run(
            ["run", file, "--out", directory.path + "/out", "--formats", "md"], environment: ["GITLAB_CI": "true"])
        #expect(failed.status == 1)
        #expect(failed.output.contains("\u{1B}[31;1mERROR: featureload: gate: threshold edits"), Comment(rawValue: failed.output))
        #expect(!failed.output.contains("::error"))
    }
}
