import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

@testable import featureload

/// `run --generators N` shows one progress line summed over its generators while they run, and what they did
/// together when they are done, as a single run shows its own.
@Suite struct GeneratorProgressTests {
    static func share(_ scenario: String, requests: Int, p95: Double, inFlight: Int) -> ScenarioProgress {
        ScenarioProgress(
            scenario: scenario, elapsed: Double(requests) / 100, plannedSeconds: 4, plannedIterations: nil, iterations: requests,
            requests: requests, failedRequests: 1, edits: requests, editsFailed: 0, inFlight: inFlight, p95Milliseconds: p95)
    }

    @Test("shares sum: counts add up, elapsed and p95 are the highest, and a scenario is done once every generator has finished it")
    func sums() throws {
        var first = GeneratorProgress()
        let changed = first.record(.progress([Self.share("writes", requests: 100, p95: 2, inFlight: 3)]))
        #expect(changed)
        var second = GeneratorProgress()
        _ = second.record(.progress([Self.share("writes", requests: 150, p95: 5, inFlight: 4)]))
        second.finished.insert("writes")
        // A progress event taken before the scenario ended does not replace the final figures.
        _ = second.record(.progress([Self.share("writes", requests: 120, p95: 1, inFlight: 1)]))
        #expect(second.scenarios["writes"]?.requests == 150)

        let (running, finished) = GeneratorProgress.sum([first, second, GeneratorProgress()], order: ["reads", "writes"])
        #expect(finished.isEmpty)
        let total = try #require(running.first)
        #expect(running.count == 1 && total.requests == 250 && total.iterations == 250 && total.edits == 250)
        #expect(total.failedRequests == 2 && total.inFlight == 7 && total.p95Milliseconds == 5 && total.elapsed == 1.5)

        first.finished.insert("writes")
        #expect(GeneratorProgress.sum([first, second], order: ["writes"]).finished.map(\.requests) == [250])
        #expect(GeneratorProgress.sum([first, second, GeneratorProgress()], order: ["writes"]).finished.isEmpty, "one has not started")
    }

    @Test("run --generators 2 prints progress lines summed over both, and a done line with the merged report's counts", .timeLimit(.minutes(2)))
    func summedProgressLine() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/split.yaml"
        try """
        version: 2
        name: split
        target: local
        seed: 3
        verify: false
        scenarios:
          writes:
            executor: constant-arrival-rate
            rate: 40
            duration: 4s
            preAllocatedVUs: 4
            maxVUs: 8
            exec: applyEdits
            adds: 1
            clientGlobalIds: true
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Featureload.run([
            "run", file, "--generators", "2", "--out", directory.path + "/out", "--formats", "md", "--progress-interval", "1s",
        ])
        let output = result.output
        #expect(result.status == 0, Comment(rawValue: output + result.errorOutput))
        let folder = try CommandLineTests.folder(from: output)
        let report = try RunReport.decode(Data(contentsOf: URL(fileURLWithPath: folder + "/report.json")))
        let view = try #require(report.views.first)

        // While they run: one line for the scenario, whatever the number of generators, counting both.
        let lines = output.split(separator: "\n").filter { $0.hasPrefix("progress writes  ") }
        let counts = lines.compactMap { Self.number(after: "iterations ", in: $0) }
        #expect(!counts.isEmpty && counts.count == lines.count, Comment(rawValue: output))
        #expect(counts.allSatisfy { $0 <= view.iterations } && counts.contains { $0 > 0 }, Comment(rawValue: output))
        #expect(counts == counts.sorted(), "the sums only grow")
        // When both are done: their final figures, summed, are the merged report's.
        let done = try #require(output.split(separator: "\n").first { $0.hasPrefix("  writes done on 2 generators") }, Comment(rawValue: output))
        #expect(Self.number(after: "s: ", in: done) == view.requests, Comment(rawValue: String(done)))
        #expect(Self.number(after: "failed), ", in: done) == view.editsApplied, Comment(rawValue: String(done)))

        let quiet = try await Featureload.run([
            "run", file, "--generators", "2", "--out", directory.path + "/quiet", "--quiet", "--progress-interval", "1s",
        ])
        #expect(quiet.status == 0 && !quiet.output.contains("progress ") && !quiet.output.contains("done on"), Comment(rawValue: quiet.output))
    }

    /// The whole number (digits and grouping commas) right after `marker` in `line`.
    static func number(after marker: String, in line: Substring) -> Int? {
        guard let range = line.range(of: marker) else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber || $0 == "," }.filter(\.isNumber))
    }
}
