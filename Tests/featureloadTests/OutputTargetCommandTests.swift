import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// End-to-end: outputs write into what they name and never replace it — a FIFO is read by its reader, a link stays a
/// link, `-` is standard output (the run's own lines then go to standard error).
@Suite(.serialized) struct OutputTargetCommandTests {
    static let scenario = """
        version: 2
        name: outputs
        target: local
        verify: false
        scenarios:
          counts:
            executor: shared-iterations
            vus: 2
            iterations: 30
            exec: query
            returnCountOnly: true
        """

    static let header = RawSampleDestination.columns.joined(separator: ",")

    /// The scenario written into `directory`.
    static func scenarioFile(in directory: TemporaryDirectory) throws -> String {
        let file = directory.path + "/outputs.yaml"
        try scenario.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The number of requests the run's report counts.
    static func requests(in root: String, output: String) throws -> Int {
        let report = try CommandLineTests.report(in: root, output: output)
        return Int(try #require(report.aggregate(.httpReqs, filter: [:])?.count))
    }

    @Test("--out csv=FIFO streams every line to the FIFO's reader, and the FIFO is still a FIFO", .timeLimit(.minutes(2)))
    func fifo() async throws {
        let directory = try TemporaryDirectory()
        let file = try Self.scenarioFile(in: directory)
        let reader = try FIFOReader(makingFIFOAt: directory.path + "/samples.csv")
        let result = try await Featureload.run(["run", file, "--out", directory.path + "/out", "--out", "csv=" + reader.path, "--formats", "md"])
        let text = String(decoding: await reader.finish(within: .seconds(5)), as: UTF8.self)
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        #expect(reader.isFIFO, "the FIFO was replaced")
        let lines = text.split(separator: "\n")
        #expect(lines.first == Substring(Self.header), "\(text.prefix(300))")
        #expect(lines.count - 1 == (try Self.requests(in: directory.path + "/out", output: result.output)))
    }

    @Test("--out json=LINK writes the file the link leads to, in another folder, and the link stays a link", .timeLimit(.minutes(2)))
    func symbolicLink() async throws {
        let directory = try TemporaryDirectory()
        let file = try Self.scenarioFile(in: directory)
        try FileManager.default.createDirectory(atPath: directory.path + "/kept", withIntermediateDirectories: true)
        let target = directory.path + "/kept/samples.json"
        try "stale\n".write(toFile: target, atomically: true, encoding: .utf8)
        let link = directory.path + "/samples.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "kept/samples.json")
        let result = try await Featureload.run(["run", file, "--out", directory.path + "/out", "--out", "json=" + link, "--formats", "md"])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "kept/samples.json", "the link was replaced")
        let lines = try String(contentsOfFile: target, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == (try Self.requests(in: directory.path + "/out", output: result.output)))
        #expect(lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) is [String: Any] }, "\(lines.prefix(2))")
    }

    @Test("--out csv=- streams the samples alone to standard output; the summary and report paths go to standard error", .timeLimit(.minutes(2)))
    func standardOutput() async throws {
        let directory = try TemporaryDirectory()
        let file = try Self.scenarioFile(in: directory)
        let result = try await Featureload.run(
            ["run", file, "--out", directory.path + "/out", "--out", "csv=-", "--formats", "md"], directory: directory.path)
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/-"), "a file named - was made")
        let lines = result.output.split(separator: "\n")
        #expect(lines.first == Substring(Self.header), "\(result.output.prefix(300))")
        #expect(lines.dropFirst().allSatisfy { RawOutputCommandTests.csvFields($0).count == RawSampleDestination.columns.count })
        #expect(lines.count - 1 == (try Self.requests(in: directory.path + "/out", output: result.errorOutput)))
        #expect(result.errorOutput.contains("requests: standard output"), "\(result.errorOutput)")
    }

    @Test("--out - as the reports' directory is refused before the run, pointing at csv=- for standard output")
    func reportDirectoryIsNoStream() async throws {
        let directory = try TemporaryDirectory()
        let file = try Self.scenarioFile(in: directory)
        let result = try await Featureload.run(["run", file, "--out", "-"], directory: directory.path)
        #expect(result.status == 2, "\(result.output)\(result.errorOutput)")
        #expect(
            result.errorOutput.contains("--out -: not a directory") && result.errorOutput.contains("csv=FILE or json=FILE (- for standard output)"))
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/-") && !result.output.contains("running "))
    }

    @Test("apply --rejects FIFO writes the rejects to its reader and no reasons file beside it", .timeLimit(.minutes(2)))
    func rejectsIntoFIFO() async throws {
        let directory = try TemporaryDirectory()
        let input = directory.path + "/parks.geojson"
        try ApplyCommandTests.geojson(20, invalid: [7], prefix: "Piped").write(toFile: input, atomically: true, encoding: .utf8)
        let reader = try FIFOReader(makingFIFOAt: directory.path + "/rejects.geojson")
        let result = try await Featureload.run([
            "apply", input, "--to", "local", "--layer", "0", "--data", directory.path + "/parks.sqlite", "--journal",
            directory.path + "/parks.journal",
            "--skip-invalid", "--rejects", reader.path,
        ])
        let text = String(decoding: await reader.finish(within: .seconds(5)), as: UTF8.self)
        #expect(result.status == 1, "one record is invalid: \(result.output)\(result.errorOutput)")
        #expect(reader.isFIFO, "the FIFO was replaced")
        #expect(text.contains("Piped 7") && text.hasPrefix(#"{"type":"FeatureCollection""#), "\(text.prefix(300))")
        #expect(result.output.contains("rejects: 1 record in \(reader.path)"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: reader.path + ".reasons.tsv"))
    }
}
