import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// A service that stalls under the run: the requests the scenario's end cuts off fail the run, through the CLI.
@Suite struct CutOffCommandTests {
    @Test("a stall fault under constant-vus: the cut-off requests fail max and http_req_failed, and every output says so", .timeLimit(.minutes(2)))
    func stalledRunFails() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/stall.yaml"
        try """
        version: 2
        name: stall
        target: local
        local:
          faults: ["stall:1:seconds=300@applyEdits"]
        scenarios:
          stuck:
            executor: constant-vus
            vus: 2
            duration: 1s
            gracefulStop: 1s
            exec: applyEdits
            adds: 1
        thresholds:
          http_req_duration: ["max<1000"]
          http_req_failed: ["rate<0.01"]
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Featureload.run([
            "run", file, "--out", directory.path + "/out", "--formats", "md", "--formats", "junit", "--formats", "html",
        ])
        #expect(result.status == 1, "\(result.output)\n\(result.errorOutput)")
        #expect(result.output.contains("2 requests cut off still waiting"), "\(result.output)")
        #expect(result.output.contains("stuck: 2 requests were still waiting for the service at the end of its gracefulStop"), "\(result.output)")
        #expect(result.output.contains("threshold http_req_failed: rate<0.01"))
        #expect(result.output.contains("result: FAIL"))
        #expect(!result.output.contains("All gates passed"))
        let report = try CommandLineTests.report(in: directory.path + "/out", output: result.output)
        #expect(report.thresholds.first { $0.key == "http_req_failed" }?.passed == false)
        // Each waited at least the 1 s grace.
        #expect(report.thresholds.first { $0.key == "http_req_duration" }?.passed == false)
        #expect(report.aggregate(.httpReqs, filter: ["status": "interrupted"])?.count == 2)
        let folder = try CommandLineTests.folder(from: result.output)
        for name in ["report.md", "report.junit.xml", "report.html"] {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            #expect(text.contains("2 requests were still waiting for the service"), "\(name)")
        }
    }
}
