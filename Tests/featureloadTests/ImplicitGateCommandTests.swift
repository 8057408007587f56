import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// The implicit failed-request gate, through the built binary against the embedded service: a scenario whose every
/// read fails does not pass, says which gate failed and how to change it, and passes only where the file turns the
/// gate off.
@Suite(.serialized) struct ImplicitGateCommandTests {
    static func scenario(_ extra: String) -> String {
        """
        version: 2
        name: broken-reads
        target: local
        \(extra)
        scenarios:
          readers:
            executor: shared-iterations
            vus: 2
            iterations: 20
            exec: query
            where: "no_such_field = 1"
        """
    }

    @Test("a query scenario whose every request fails exits 1 with the implicit gate named in the summary and every report", .timeLimit(.minutes(2)))
    func everyReadFails() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/broken.yaml"
        try Self.scenario("").write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Featureload.run(["run", file, "--out", directory.path + "/out"])
        let output = "\(result.output)\n\(result.errorOutput)"
        #expect(result.status == 1, Comment(rawValue: output))
        #expect(result.output.contains("result: FAIL"), Comment(rawValue: output))
        #expect(
            result.output.contains("readers: 20 of 20 requests failed (100 %), above the allowed 1 % (maxFailedRequestRate)"),
            Comment(rawValue: output))
        #expect(
            result.output.contains(
                "implicit gates: failed edits ≤ 0 % (maxFailedEditRate), failed requests ≤ 1 % (maxFailedRequestRate), per scenario"),
            Comment(rawValue: output))
        let report = try CommandLineTests.report(in: directory.path + "/out", output: result.output)
        #expect(!report.verdict.passed && report.plan.maxFailedRequestRate == 0.01)
        let folder = try CommandLineTests.folder(from: result.output)
        let junit = try String(contentsOfFile: folder + "/report.junit.xml", encoding: .utf8)
        #expect(junit.contains(#"name="failed requests ≤ 1 %""#) && junit.contains("20 of 20 requests failed (100 %)"), Comment(rawValue: junit))
        for name in ["report.md", "report.html"] {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            #expect(text.contains("implicit gates"), "\(name)")
        }

        // The gate can be moved, and removed, only by saying so in the file.
        let off = directory.path + "/off.yaml"
        try Self.scenario("maxFailedRequestRate: 1").write(toFile: off, atomically: true, encoding: .utf8)
        let allowed = try await Featureload.run(["run", off, "--out", directory.path + "/off"])
        #expect(allowed.status == 0, "\(allowed.output)\n\(allowed.errorOutput)")
        #expect(allowed.output.contains("no failed-request gate (maxFailedRequestRate: 1)"), "\(allowed.output)")
    }
}
