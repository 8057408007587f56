import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// `featureload report merge`: the halves of one test, run as two generators, merged into one report and one exit
/// code; reports that do not belong together are refused with the reason.
@Suite(.serialized) struct ReportMergeCommandTests {
    static let scenario = """
        version: 2
        name: halves
        target: local
        seed: 4
        scenarios:
          writes:
            executor: shared-iterations
            vus: 4
            iterations: 40
            exec: applyEdits
            adds: 2
            clientGlobalIds: true
        thresholds:
          "edits{scenario:writes}": ["count==80"]
        """

    /// Runs `yaml` as segment `segment` of halves; returns its report.json.
    static func run(_ yaml: String, segment: String, in directory: String) async throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/halves.yaml"
        try yaml.write(toFile: file, atomically: true, encoding: .utf8)
        let out = directory + "/" + segment.replacingOccurrences(of: "/", with: "-").replacingOccurrences(of: ":", with: "_")
        let result = try await Featureload.run([
            "run", file, "--quiet", "--formats", "md", "--out", out, "--execution-segment", segment, "--execution-segment-sequence", "0,1/2,1",
        ])
        // Each half alone fails its count threshold (40 of 80 edits): the gate is the merged run's.
        #expect(result.status == 1, "\(result.output)\(result.errorOutput)")
        let folder = try #require(try FileManager.default.contentsOfDirectory(atPath: out).first)
        return out + "/" + folder + "/report.json"
    }

    @Test("two halves merge into one passing report that renders in every format; mismatched reports are refused", .timeLimit(.minutes(2)))
    func merge() async throws {
        let directory = try TemporaryDirectory()
        let first = try await Self.run(Self.scenario, segment: "0:1/2", in: directory.path)
        let second = try await Self.run(Self.scenario, segment: "1/2:1", in: directory.path)
        let merged = directory.path + "/merged.json"
        let result = try await Featureload.run(["report", "merge", first, second, "-o", merged])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        let report = try RunReport.decode(Data(contentsOf: URL(fileURLWithPath: merged)))
        #expect(report.segment == "0:1" && report.verdict.passed)
        #expect(report.views.first?.iterations == 40 && report.views.first?.editsApplied == 80)
        #expect(report.thresholds.allSatisfy { $0.passed }, "the count threshold holds for the whole test")
        #expect(report.notes.first?.hasPrefix("merged from 2 generators") == true, "\(report.notes)")
        for format in ["md", "junit", "html", "json"] {
            let rendered = try await Featureload.run(["report", merged, "--format", format])
            #expect(rendered.status == 0 && rendered.output.contains("halves"), "\(format): \(rendered.errorOutput)")
        }

        let half = try await Featureload.run(["report", "merge", first, "-o", directory.path + "/half.json"])
        #expect(half.status == 1 && half.errorOutput.contains("cover 1/2 of the test"), "\(half.errorOutput)")
        let twice = try await Featureload.run(["report", "merge", first, first])
        #expect(twice.status == 2 && twice.errorOutput.contains("both ran segment 0:1/2"), "\(twice.errorOutput)")
        let other = try await Self.run(
            Self.scenario.replacingOccurrences(of: "name: halves", with: "name: other"), segment: "1/2:1", in: directory.path + "/x")
        let mixed = try await Featureload.run(["report", "merge", first, other])
        #expect(mixed.status == 2 && mixed.errorOutput.contains("merge the reports of one scenario file"), "\(mixed.errorOutput)")
        let legacy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/report-v1-fc2f927.json").path
        let old = try await Featureload.run(["report", "merge", first, legacy])
        #expect(old.status == 2 && old.errorOutput.contains("schema version 1"), "\(old.errorOutput)")
    }

    @Test(
        "run --generators 4 runs a constant-arrival-rate write test as four processes against one embedded service: the same iterations as one process, every feature once, one merged report",
        .timeLimit(.minutes(2)))
    func generators() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/arrivals.yaml"
        try """
        version: 2
        name: arrivals
        target: local
        seed: 8
        scenarios:
          writes:
            executor: constant-arrival-rate
            rate: 100
            duration: 3s
            preAllocatedVUs: 4
            maxVUs: 8
            exec: applyEdits
            adds: 1
            clientGlobalIds: true
        thresholds:
          "iterations{scenario:writes}": ["count==300"]
        """.write(toFile: file, atomically: true, encoding: .utf8)
        var iterations: [Int] = []
        for arguments in [[String](), ["--generators", "4"]] {
            let out = directory.path + "/out\(arguments.count)"
            let result = try await Featureload.run(["run", file, "--quiet", "--formats", "md", "--out", out] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.output)\(result.errorOutput)")
            let folder = try #require(try FileManager.default.contentsOfDirectory(atPath: out).first)
            let report = try RunReport.decode(Data(contentsOf: URL(fileURLWithPath: "\(out)/\(folder)/report.json")))
            let view = try #require(report.views.first)
            iterations.append(view.iterations)
            #expect(view.record.verification?.passed == true, "\(arguments): \(view.record.verification?.notes ?? [])")
            #expect(view.record.verification?.globalIdsFound == 300, "every feature written once")
            if !arguments.isEmpty {
                #expect(report.segment == "0:1" && report.notes.first?.hasPrefix("merged from 4 generators") == true, "\(report.notes)")
                #expect(report.target.kind == "local")
            }
        }
        #expect(iterations == [300, 300])
    }
}
