import BatchApply
import FeatureloadTestSupport
import Foundation
import Testing

/// End-to-end: what `apply` writes besides the journal (`--rejects`, `--report`) never replaces what it reads or keeps,
/// and a file it cannot write is said plainly, with the journal left to resume.
@Suite(.serialized) struct ApplyOutputTests {
    @Test(
        "--rejects or --report naming the input, the journal or the data file, however spelt or linked, is refused before anything is sent",
        .timeLimit(.minutes(2)))
    func outputsNeverOverwriteInputs() async throws {
        let directory = try TemporaryDirectory()
        let input = directory.path + "/parks.geojson"
        let text = ApplyCommandTests.geojson(20, prefix: "Kept")
        try text.write(toFile: input, atomically: true, encoding: .utf8)
        let data = directory.path + "/parks.sqlite"
        let journal = directory.path + "/parks.journal"
        let common = ["apply", input, "--to", "local", "--layer", "0", "--data", data, "--journal", journal]
        // A link to the input named as a report, the input spelt another way, and the data file.
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/report.json", withDestinationPath: input)
        let spelt = directory.path + "/./sub/../parks.geojson"
        try FileManager.default.createDirectory(atPath: directory.path + "/sub", withIntermediateDirectories: true)
        for (extra, option, what) in [
            (["--report", directory.path + "/report.json"], "--report", "the input"), (["--rejects", spelt], "--rejects", "the input"),
            (["--rejects", data], "--rejects", "the data file"),
        ] {
            let refused = try await Featureload.run(common + extra)
            #expect(refused.status == 2, "\(extra): \(refused.output)\(refused.errorOutput)")
            #expect(refused.errorOutput.contains("\(option) ") && refused.errorOutput.contains("is \(what)"), "\(refused.errorOutput)")
            #expect(try String(contentsOfFile: input, encoding: .utf8) == text, "the input is untouched")
            #expect(!FileManager.default.fileExists(atPath: journal), "nothing was started")
        }
        let applied = try await Featureload.run(common)
        #expect(applied.status == 0, "\(applied.output)\(applied.errorOutput)")
        // On resume too: a hard link to the journal as the report, the journal as the rejects file.
        try FileManager.default.linkItem(atPath: journal, toPath: directory.path + "/journal.json")
        let before = try Data(contentsOf: URL(fileURLWithPath: journal))
        for (extra, option) in [(["--report", directory.path + "/journal.json"], "--report"), (["--rejects", journal], "--rejects")] {
            let refused = try await Featureload.run(["apply", "--resume", journal] + extra)
            #expect(
                refused.status == 2 && refused.errorOutput.contains("\(option) ") && refused.errorOutput.contains("is the journal"),
                "\(refused.errorOutput)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == before, "the journal is untouched")
        #expect(try String(contentsOfFile: input, encoding: .utf8) == text)
    }

    @Test(
        "a rejects file that cannot be written: exit 1, the applied edits counted, and the journal said to be consistent; a resume writes it",
        .timeLimit(.minutes(2)))
    func unwritableRejects() async throws {
        let directory = try TemporaryDirectory()
        let input = directory.path + "/parks.geojson"
        try ApplyCommandTests.geojson(200, invalid: [42], prefix: "Unwritten").write(toFile: input, atomically: true, encoding: .utf8)
        let journal = directory.path + "/parks.journal"
        let result = try await Featureload.run([
            "apply", input, "--to", "local", "--layer", "0", "--data", directory.path + "/parks.sqlite", "--journal", journal, "--skip-invalid",
            "--rejects", "/proc/featureload-rejects",
        ])
        #expect(result.status == 1, "\(result.output)\(result.errorOutput)")
        #expect(result.output.contains("applied 199 of 199 edits"), "\(result.output)")
        #expect(
            result.output.contains("cannot write /proc/featureload-rejects (") && result.output.contains("the journal is consistent"),
            "\(result.output)")
        #expect(
            !result.output.contains("Error") && !result.errorOutput.contains("Error"), "no error type's name: \(result.output)\(result.errorOutput)")
        let rejects = directory.path + "/rejects.geojson"
        let resumed = try await Featureload.run(["apply", "--resume", journal, "--rejects", rejects])
        #expect(resumed.status == 1 && resumed.output.contains("rejects: 1 record in \(rejects)"), "\(resumed.output)\(resumed.errorOutput)")
        #expect(try String(contentsOfFile: rejects, encoding: .utf8).contains("Unwritten 42"))
    }
}
