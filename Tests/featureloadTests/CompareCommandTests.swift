import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// `featureload compare` on real runs of the embedded service.
@Suite(.serialized) struct CompareCommandTests {
    static func scenario(latency: String?) -> String {
        """
        version: 2
        name: compare-me
        target: local
        \(latency.map { "local: { latency: \"\($0)\" }" } ?? "")
        verify: false
        scenarios:
          counts:
            executor: constant-vus
            vus: 4
            duration: 2s
            exec: query
            returnCountOnly: true
        """
    }

    static func run(_ yaml: String, in directory: TemporaryDirectory, name: String) async throws -> String {
        let file = directory.path + "/\(name).yaml"
        try yaml.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Featureload.run(["run", file, "--quiet", "--out", directory.path + "/\(name)"])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        return try CommandLineTests.folder(from: result.output) + "/report.json"
    }

    @Test("a run against itself: no regression; against 50 ms more latency: a latency regression, exit 1", .timeLimit(.minutes(2)))
    func regressions() async throws {
        let directory = try TemporaryDirectory()
        let fast = try await Self.run(Self.scenario(latency: nil), in: directory, name: "fast")
        let slow = try await Self.run(Self.scenario(latency: "fixed:50@query"), in: directory, name: "slow")

        let same = try await Featureload.run(["compare", fast, fast])
        #expect(same.status == 0, "\(same.output)\(same.errorOutput)")
        #expect(same.output.contains("# Comparison: no regression"))
        #expect(!same.output.contains("| regression |"))

        let worse = try await Featureload.run(["compare", fast, slow])
        #expect(worse.status == 1, "\(worse.output)\(worse.errorOutput)")
        #expect(worse.output.contains("# Comparison: REGRESSION"))
        #expect(worse.output.contains("| regression | counts | all | p95 |"), "\(worse.output)")

        let better = try await Featureload.run(["compare", slow, fast, "--metric", "p95"])
        #expect(better.status == 0)
        #expect(better.output.contains("| improvement | counts | all | p95 |"), "\(better.output)")

        let junitFile = directory.path + "/compare.junit.xml"
        let junit = try await Featureload.run(["compare", fast, slow, "--format", "junit", "-o", junitFile])
        #expect(junit.status == 1)
        let parsed = try ReportCommandTests.junitparser(junitFile)
        #expect(parsed.contains("counts | p95 | p95"), "\(parsed)")

        let json = try await Featureload.run(["compare", fast, slow, "--format", "json", "--tolerance", "100000%"])
        #expect(json.status == 0, "a tolerance of 1000× lets 50 ms through: \(json.output)")
        let decoded = try JSONDecoder().decode(RunComparison.self, from: Data(json.output.utf8))
        #expect(!decoded.regressed && decoded.rows.contains { $0.metric == "p95" })
    }

    @Test("unreadable files and runs of different scenarios exit 2; a bad tolerance or metric is a usage error")
    func refusals() async throws {
        let directory = try TemporaryDirectory()
        let fast = try await Self.run(Self.scenario(latency: nil), in: directory, name: "fast")
        let other = try await Self.run(
            Self.scenario(latency: nil).replacingOccurrences(of: "  counts:", with: "  tallies:"), in: directory, name: "other")
        let missing = try await Featureload.run(["compare", fast, directory.path + "/nope.json"])
        #expect(missing.status == 2 && missing.errorOutput.contains("no such file"))
        let different = try await Featureload.run(["compare", fast, other])
        #expect(different.status == 2 && different.errorOutput.contains("different scenarios"), "\(different.errorOutput)")
        let tolerance = try await Featureload.run(["compare", fast, fast, "--tolerance", "lots"])
        #expect(tolerance.status == 64 && tolerance.errorOutput.contains("10%"))
        let metric = try await Featureload.run(["compare", fast, fast, "--metric", "p42"])
        #expect(metric.status == 64 && metric.errorOutput.contains("p95"))
    }
}
