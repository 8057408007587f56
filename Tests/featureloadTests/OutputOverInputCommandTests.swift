import FeatureloadTestSupport
import Foundation
import Testing

/// End-to-end: no output of `run`, `compare`, `report` or `report merge` overwrites what the command reads, however
/// the path is spelt or linked; each refuses before any work, exit 2, naming the option, the path and the input, and
/// the input is left byte for byte as it was (`apply`'s own check: ApplyOutputTests).
@Suite(.serialized) struct OutputOverInputCommandTests {
    /// Runs `arguments`, expects the refusal, and checks that `input` still holds `bytes`.
    static func expectRefused(
        _ arguments: [String], naming option: String, is what: String, keeping input: String, as bytes: Data,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let result = try await Featureload.run(arguments)
        #expect(result.status == 2, "\(arguments): \(result.output)\(result.errorOutput)", sourceLocation: sourceLocation)
        #expect(
            result.errorOutput.contains("\(option) is \(what) (") && result.errorOutput.contains("never writes over what it reads"),
            "\(result.errorOutput)", sourceLocation: sourceLocation)
        #expect(!result.output.contains("running "), "nothing ran: \(result.output)", sourceLocation: sourceLocation)
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == bytes, "\(input) changed", sourceLocation: sourceLocation)
    }

    @Test(
        "run --out csv=/json= naming the data file, the scenario file through a linked folder, the dataset file or another output is refused",
        .timeLimit(.minutes(2)))
    func run() async throws {
        let directory = try TemporaryDirectory()
        let file = try OutputTargetCommandTests.scenarioFile(in: directory)
        let data = directory.path + "/d.sqlite"
        let made = try await Featureload.run(["run", file, "--data", data, "--out", directory.path + "/out", "--quiet"])
        #expect(made.status == 0, "\(made.output)\(made.errorOutput)")
        let database = try Data(contentsOf: URL(fileURLWithPath: data))
        let scenario = try Data(contentsOf: URL(fileURLWithPath: file))
        let common = ["run", file, "--data", data, "--out", directory.path + "/out"]
        try await Self.expectRefused(
            common + ["--out", "csv=" + data], naming: "--out csv=\(data)", is: "the data file", keeping: data, as: database)

        try FileManager.default.createSymbolicLink(atPath: directory.path + "/link", withDestinationPath: directory.path)
        let linked = directory.path + "/link/outputs.yaml"
        try await Self.expectRefused(
            common + ["--out", "json=" + linked], naming: "--out json=\(linked)", is: "the scenario file", keeping: file, as: scenario)

        let parks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Scenarios/datasets/parks.json")
        let dataset = directory.path + "/parks.json"
        try FileManager.default.copyItem(atPath: parks.path, toPath: dataset)
        let withDataset = directory.path + "/with-dataset.yaml"
        try OutputTargetCommandTests.scenario.replacingOccurrences(of: "target: local", with: "target: local\nlocal: { dataset: \(dataset) }")
            .write(toFile: withDataset, atomically: true, encoding: .utf8)
        try await Self.expectRefused(
            ["run", withDataset, "--out", directory.path + "/out", "--out", "csv=" + dataset], naming: "--out csv=\(dataset)",
            is: "the dataset file", keeping: dataset, as: try Data(contentsOf: parks))

        // Two outputs that are one file: the second through a link to the first.
        let samples = directory.path + "/samples.csv"
        try "kept\n".write(toFile: samples, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/samples-link.csv", withDestinationPath: samples)
        let twice = try await Featureload.run(common + ["--out", "csv=" + samples, "--out", "json=" + directory.path + "/samples-link.csv"])
        #expect(twice.status == 2 && twice.errorOutput.contains("are the same file"), "\(twice.errorOutput)")
        #expect(try String(contentsOfFile: samples, encoding: .utf8) == "kept\n")
    }

    @Test(
        "compare -o naming the baseline, report -o naming the report and report merge -o naming a report merged are refused", .timeLimit(.minutes(2)))
    func reports() async throws {
        let directory = try TemporaryDirectory()
        let file = try OutputTargetCommandTests.scenarioFile(in: directory)
        let made = try await Featureload.run(["run", file, "--out", directory.path + "/out", "--quiet"])
        #expect(made.status == 0, "\(made.output)\(made.errorOutput)")
        let report = try CommandLineTests.folder(from: made.output) + "/report.json"
        let base = directory.path + "/base.json"
        let new = directory.path + "/new.json"
        try FileManager.default.copyItem(atPath: report, toPath: base)
        try FileManager.default.copyItem(atPath: report, toPath: new)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: base))

        try await Self.expectRefused(["compare", base, new, "-o", base], naming: "-o \(base)", is: "the baseline", keeping: base, as: bytes)
        // A hard link to the run judged is the same file by another name.
        try FileManager.default.linkItem(atPath: new, toPath: directory.path + "/judged.json")
        try await Self.expectRefused(
            ["compare", base, new, "-o", directory.path + "/judged.json"], naming: "-o \(directory.path)/judged.json", is: "the run to judge",
            keeping: new, as: bytes)
        try await Self.expectRefused(
            ["report", base, "--format", "md", "-o", base], naming: "-o \(base)", is: "the report rendered", keeping: base, as: bytes)
        let spelt = directory.path + "/out/../new.json"
        try await Self.expectRefused(
            ["report", "merge", new, "-o", spelt], naming: "-o \(spelt)", is: "a report merged", keeping: new, as: bytes)

        // Writing somewhere else still works.
        let compared = directory.path + "/compare.md"
        let allowed = try await Featureload.run(["compare", base, new, "-o", compared])
        #expect(allowed.status == 0, "\(allowed.output)\(allowed.errorOutput)")
        #expect(try String(contentsOfFile: compared, encoding: .utf8).contains("# Comparison"))
    }
}
