import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// Every scenario file in `Scenarios/` validates and runs against the embedded service as shipped, from the built
/// binary, and passes its own gates.
@Suite(.serialized) struct ShippedScenarioTests {
    /// The repository's `Scenarios/` folder, found from this source file.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios")

    static var files: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted()
    }

    @Test("the shipped scenarios are all there, each opening with a comment that says what it shows")
    func shipped() throws {
        let files = Self.files
        #expect(files.count >= 11, "\(files)")
        for name in files {
            let text = try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
            #expect(text.hasPrefix("# "), "\(name) opens with a comment")
        }
    }

    @Test("featureload schema prints the committed schema byte for byte, so the file editors use cannot drift from the parser")
    func schema() async throws {
        let shipped = try String(contentsOf: Self.folder.appendingPathComponent("schema/scenario.schema.json"), encoding: .utf8)
        #expect(shipped == ScenarioSchema.json + "\n", "regenerate it: swift run featureload schema > Scenarios/schema/scenario.schema.json")
        let printed = try await Featureload.run(["schema"])
        #expect(printed.status == 0)
        #expect(printed.output == shipped)
        let parsed = try JSONSerialization.jsonObject(with: Data(printed.output.utf8)) as? NSDictionary
        #expect(parsed?["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
    }

    @Test("each shipped scenario validates, runs against local, passes and writes its reports", .timeLimit(.minutes(3)), arguments: files)
    func runs(file: String) async throws {
        let path = Self.folder.appendingPathComponent(file).path
        let validate = try await Featureload.run(["validate", path])
        #expect(validate.status == 0, "\(validate.errorOutput)")
        let directory = try TemporaryDirectory()
        let result = try await Featureload.run(["run", path, "--quiet", "--out", directory.path])
        let report = try CommandLineTests.report(in: directory.path, output: result.output)
        if file == "quickstart.yaml" {
            // The quickstart's 10× speed-up gate is a release-build figure (`scripts/quickstart` builds in release); this
            // debug build reaches about 10× on 2 cores, so here batching must only be clearly faster, and nothing else fail.
            let speedUp = try #require(report.comparisons.first)
            #expect(speedUp.ratio >= 5, "\(speedUp)")
            #expect(result.status == 0 || (result.status == 1 && report.verdict.failures.allSatisfy { $0.contains("editsPerSecond") }))
        } else {
            #expect(result.status == 0, "\(file): \(result.output) \(result.errorOutput)")
            #expect(report.verdict.passed, "\(file): \(report.verdict.failures); errors: \(report.scenarios.map { "\($0.name): \($0.errors)" })")
        }
        #expect(report.views.allSatisfy { $0.requests > 0 }, "\(file)")
        #expect(report.views.allSatisfy { $0.record.verification?.passed ?? true }, "\(file)")
        // Every format is written beside report.json.
        let folder = try CommandLineTests.folder(from: result.output)
        for name in ["report.md", "report.junit.xml", "report.html"] {
            #expect(FileManager.default.fileExists(atPath: folder + "/" + name), "\(file): \(name)")
        }
        if file == "capacity-sweep.yaml" {
            // Five measured points (warm-ups left out), a scalability fit and Little's law on each point.
            let capacity = try #require(report.capacity.first)
            #expect(report.scenarios.count == 5 && capacity.points.map(\.value) == [1, 2, 4, 8, 16])
            #expect(capacity.fit != nil && capacity.points.allSatisfy { $0.littlesLaw != nil })
            let markdown = try String(contentsOfFile: folder + "/report.md", encoding: .utf8)
            #expect(markdown.contains("## Sweep: counts (vus)") && markdown.contains("Universal Scalability Law"))
            let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
            #expect(html.contains(#"aria-label="Throughput by vus""#) && html.contains("USL fit"))
            // The capacity verdict, in every output: the SLO drawn on the p95 chart, the sentence in the console.
            #expect(markdown.contains("Usable capacity (p95 ≤ 50 ms") || markdown.contains("No point was usable (p95 ≤ 50 ms"), "\(markdown)")
            #expect(html.contains("SLO 50 ms"))
            #expect(ReportRenderer.summary(report).contains("sweep counts: "))
        }
        if file == "batch-size-sweep.yaml" {
            let capacity = try #require(report.capacity.first)
            #expect(capacity.parameter == "batchSize" && capacity.points.map(\.value) == [1, 10, 100, 1000])
            #expect(capacity.points.last!.editsPerSecond > capacity.points.first!.editsPerSecond, "batching pays")
        }
    }
}
