import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

/// ``OutputFile``'s rules on real files: what a path names is written into, never replaced.
@Suite struct OutputFileTests {
    @Test("a FIFO is opened and written, whole or as a stream, and stays a FIFO", .timeLimit(.minutes(1)))
    func fifo() async throws {
        let directory = try TemporaryDirectory()
        let reader = try FIFOReader(makingFIFOAt: directory.path + "/whole")
        let file = OutputFile(reader.path, option: "-o")
        #expect(file.destination == .inPlace(reader.path))
        try file.write(Array("one report\n".utf8))
        #expect(String(decoding: await reader.finish(), as: UTF8.self) == "one report\n")
        #expect(reader.isFIFO)

        let streamed = try FIFOReader(makingFIFOAt: directory.path + "/stream")
        let stream = try OutputFile(streamed.path, option: "--out csv=").openStream()
        try stream.write(Array("header\n".utf8))
        try stream.write(Array("line\n".utf8))
        try stream.close()
        #expect(String(decoding: await streamed.finish(), as: UTF8.self) == "header\nline\n")
        #expect(streamed.isFIFO)
    }

    @Test("a link to a regular file in another folder: the target is replaced in its own folder, its mode kept, and the link stays a link")
    func linkToRegularFile() throws {
        let directory = try TemporaryDirectory()
        let manager = FileManager.default
        try manager.createDirectory(atPath: directory.path + "/target", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: directory.path + "/links", withIntermediateDirectories: true)
        let target = directory.path + "/target/report.json"
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        try manager.setAttributes([.posixPermissions: 0o640], ofItemAtPath: target)
        let link = directory.path + "/links/report.json"
        try manager.createSymbolicLink(atPath: link, withDestinationPath: "../target/report.json")
        let before = try #require(try manager.attributesOfItem(atPath: target)[.systemFileNumber] as? Int)

        let file = OutputFile(link, option: "--report")
        #expect(file.destination == .replaced(directory.path + "/links/../target/report.json"))
        try file.write(Array("new".utf8))

        #expect(try manager.destinationOfSymbolicLink(atPath: link) == "../target/report.json")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "new")
        let attributes = try manager.attributesOfItem(atPath: target)
        #expect(attributes[.systemFileNumber] as? Int != before, "a new file renamed over the old one")
        #expect(attributes[.posixPermissions] as? Int == 0o640)
        #expect(try manager.contentsOfDirectory(atPath: directory.path + "/target") == ["report.json"], "no temporary file left")
        #expect(try manager.contentsOfDirectory(atPath: directory.path + "/links") == ["report.json"])
    }

    @Test("a new file is written whole, with nothing left beside it; a link to no file yet makes its target")
    func newFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/merged.json"
        let file = OutputFile(path, option: "-o")
        #expect(file.destination == .replaced(path))
        try file.write(Data("{}\n".utf8))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{}\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["merged.json"])

        let dangling = directory.path + "/dangling.json"
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "made.json")
        try OutputFile(dangling, option: "-o").write(Array("made".utf8))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dangling) == "made.json")
        #expect(try String(contentsOfFile: directory.path + "/made.json", encoding: .utf8) == "made")
    }

    @Test("- and /dev/stdout are standard output, /dev/fd/N that descriptor; /dev/null is written in place")
    func descriptors() throws {
        #expect(OutputFile("-", option: "--out csv=").destination == .descriptor(1))
        #expect(OutputFile("/dev/stdout", option: "--out csv=").isStandardOutput)
        #expect(OutputFile("/dev/stderr", option: "-o").destination == .descriptor(2))
        // Read-only look: a character device is opened where it is, never renamed over.
        #expect(OutputFile("/dev/null", option: "--rejects").destination == .inPlace("/dev/null"))

        let pipe = Pipe()
        let descriptor = pipe.fileHandleForWriting.fileDescriptor
        // `-` streams to the descriptor the command keeps for standard output (here a pipe, not the test's own).
        let stream = try OutputFile("-", option: "--out csv=").openStream(standardOutput: descriptor)
        try stream.write(Array("to standard output\n".utf8))
        try stream.close()
        try OutputFile("/dev/fd/\(descriptor)", option: "-o").write(Array("to the descriptor\n".utf8))
        try pipe.fileHandleForWriting.close()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text == "to standard output\nto the descriptor\n")
    }

    @Test("a stream opens the path itself: a regular file is truncated and filled in place, a link followed")
    func streamIntoFile() throws {
        let directory = try TemporaryDirectory()
        let target = directory.path + "/samples.csv"
        try Data("stale stale stale".utf8).write(to: URL(fileURLWithPath: target))
        let link = directory.path + "/link.csv"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let stream = try OutputFile(link, option: "--out csv=").openStream()
        try stream.write(Array("a\n".utf8))
        try stream.close()
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "a\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    }

    @Test("appending follows a link and keeps what was there; a stale output goes only when it is a regular file")
    func appendAndRemove() throws {
        let directory = try TemporaryDirectory()
        let target = directory.path + "/summary.md"
        try Data("first\n".utf8).write(to: URL(fileURLWithPath: target))
        let link = directory.path + "/summary-link.md"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try OutputFile(link, option: "GITHUB_STEP_SUMMARY").append(Array("second\n".utf8))
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "first\nsecond\n")

        OutputFile(link, option: "--rejects").removeStale()
        #expect(FileManager.default.fileExists(atPath: link) && FileManager.default.fileExists(atPath: target), "a link stays")
        let reader = try FIFOReader(makingFIFOAt: directory.path + "/fifo")
        OutputFile(reader.path, option: "--rejects").removeStale()
        #expect(reader.isFIFO)
        OutputFile(target, option: "--rejects").removeStale()
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("a file that cannot be written names the option and the path, says why, and gives the fix")
    func failureMessage() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/no-such-folder/out.md"
        let failure = try #require(throws: OutputFile.Failure.self) { try OutputFile(path, option: "-o").write(Array("x".utf8)) }
        #expect(failure.description.hasPrefix("-o \(path): cannot create it (no such file or directory). Fix: "), "\(failure)")
        let streamed = try #require(throws: OutputFile.Failure.self) { try OutputFile(path, option: "--out csv=").openStream() }
        #expect(streamed.description.hasPrefix("--out csv=\(path): cannot open it for writing"), "\(streamed)")
    }
}
