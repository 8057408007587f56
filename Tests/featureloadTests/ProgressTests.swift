import FeatureloadTestSupport
import Foundation
import Testing

/// Live progress as a user sees it: in place on a terminal, periodic lines in a log.
@Suite(.serialized) struct ProgressTests {
    static let scenario = """
        version: 2
        name: progress
        target: local
        verify: false
        scenarios:
          counts:
            executor: constant-vus
            vus: 2
            duration: 3s
            exec: query
            returnCountOnly: true
        """

    @Test("not a terminal: plain progress lines every --progress-interval; none with --quiet", .timeLimit(.minutes(1)))
    func lines() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/progress.yaml"
        try Self.scenario.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Featureload.run(["run", file, "--out", directory.path, "--progress-interval", "1s"])
        #expect(result.status == 0, "\(result.errorOutput)")
        let lines = result.output.split(separator: "\n").filter { $0.hasPrefix("progress counts  ") }
        #expect(lines.count >= 2, "\(result.output)")
        #expect(lines.allSatisfy { $0.contains("/3 s  iterations ") && $0.contains(" req/s  p95 ") && $0.contains("in flight ") })
        #expect(!result.output.contains("\u{1B}["), "no terminal escapes in a log")
        let quiet = try await Featureload.run(["run", file, "--out", directory.path, "--progress-interval", "1s", "--quiet"])
        #expect(!quiet.output.contains("progress "))
        let bad = try await Featureload.run(["run", file, "--progress-interval", "soon"])
        #expect(bad.status == 64 && bad.errorOutput.contains("10s"))
    }

    @Test("on a pseudo-terminal: lines redrawn in place, and erased before the summary", .timeLimit(.minutes(1)))
    func terminal() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/progress.yaml"
        try Self.scenario.write(toFile: file, atomically: true, encoding: .utf8)
        // Python's pty module gives the binary a real terminal and collects everything it writes.
        let script = """
            import os, pty, sys
            chunks = []
            def read(fd):
                data = os.read(fd, 65536)
                chunks.append(data)
                return data
            status = pty.spawn(sys.argv[1:], read)
            open(os.environ["PROGRESS_CAPTURE"], "wb").write(b"".join(chunks))
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let capture = directory.path + "/capture.bin"
        let result = try await Featureload.runTool(
            "/usr/bin/env", ["python3", "-c", script, Featureload.binary.path, "run", file, "--out", directory.path],
            environment: ["PROGRESS_CAPTURE": capture, "TERM": "xterm"])
        #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: capture)), as: UTF8.self)
        let redraws = text.components(separatedBy: "\u{1B}[1A\u{1B}[2K").count - 1
        #expect(redraws >= 2, "the live line was redrawn: \(text.debugDescription)")
        #expect(text.contains("\u{1B}[2Kcounts  1/3 s  iterations ") || text.contains("\u{1B}[2Kcounts  2/3 s  iterations "))
        #expect(!text.contains("progress counts"), "no log lines on a terminal")
        // Replayed as a terminal would: after the last erase, only the summary is left.
        let finalScreen = text.components(separatedBy: "\u{1B}[2K").last ?? ""
        #expect(finalScreen.contains("result: PASS") && !finalScreen.contains("in flight"), "\(finalScreen.debugDescription)")
    }
}
