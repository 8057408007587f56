import BatchApply
import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

/// End-to-end: `apply --resume` under the faults it exists for, against a separate `featureload serve` that injects
/// them, with a real `kill -9`.
@Suite(.serialized) struct ApplyFaultResumeTests {
    /// The faults of issue 32's reproduction: 503s and answers dropped after commit on applyEdits, 429s with
    /// Retry-After on every route (metadata and queries too).
    static let faults = [
        "--fault", "http503:0.05@applyEdits", "--fault", "http429:0.03:retryAfter=1", "--fault", "dropAfterCommit:0.02@applyEdits", "--fault-seed",
        "32",
    ]

    @Test(
        "kill -9 mid-run twice under 503s, 429s on every route and drops after commit: each crash leaves at most --concurrency batches in doubt, and the resumes, verify included, apply every add once",
        .timeLimit(.minutes(5)))
    func killAndResumeUnderFaults() async throws {
        let directory = try TemporaryDirectory()
        let count = 6_000
        let input = directory.path + "/faulted.geojsonl"
        var lines = ""
        for index in 0..<count {
            lines +=
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(-120 + Double(index % 1000) * 0.001),\#(36 + Double(index / 1000) * 0.001)]},"properties":{"name":"Faulted \#(index)","state":"CA","visitors":\#(index)}}"#
                + "\n"
        }
        try lines.write(toFile: input, atomically: true, encoding: .utf8)
        let journal = directory.path + "/faulted.journal"
        try await ApplyCommandTests.withServe(["--data", directory.path + "/serve.sqlite"] + Self.faults) { url in
            let start = ["apply", input, "--to", url, "--layer", "0", "--journal", journal, "--batch-size", "100", "--concurrency", "4", "--quiet"]
            let resume = ["apply", "--resume", journal, "--quiet"]
            var seen: [String] = []
            var inDoubt: [Int] = []
            for (arguments, fraction) in [(start, 0.25), (resume, 0.6)] {
                let run = try ApplyCommandTests.killed(arguments, journal: journal) { journal in
                    try journal.counts().applied >= Int(Double(count) * fraction)
                }
                seen.append("killed \(run.killed) at \(run.counts?.applied ?? 0) applied, \(run.inDoubt) batches in doubt")
                inDoubt.append(run.inDoubt)
            }
            #expect(seen.allSatisfy { $0.hasPrefix("killed true") }, "both kills landed mid-run: \(seen)")
            #expect(inDoubt.allSatisfy { $0 <= 4 }, "a batch is in doubt only while its request is out, at most 4 at once: \(seen)")

            let final = try await Featureload.run(["apply", "--resume", journal, "--verify"])
            #expect(final.status == 0, "\(seen)\n\(final.output)\(final.errorOutput)")
            #expect(final.output.contains("applied \(count) of \(count) edits ("), "\(final.output)")
            #expect(final.output.contains("verify: \(count) of \(count) applied adds found once"), "\(final.output)")
            let verified = try await Featureload.run(["verify", journal])
            #expect(verified.status == 0, "verify retries the 429s too: \(verified.output)\(verified.errorOutput)")
            let held = try await withCurlTransport { transport in
                let layer = FeatureLayerClient(url: url + "/0", transport: transport)
                let query = FeatureQuery(whereClause: "name LIKE 'Faulted %'", outFields: ["name"], returnGeometry: false, orderByFields: "OBJECTID")
                return try await layer.queryAll(query, pageSize: 2000, retry: RetryPolicy(maximumAttempts: 10, budget: .seconds(60)))
            }
            #expect(
                held.count == count && Set(held.compactMap { $0[attribute: "name"]?.stringValue }).count == count,
                "every add once: \(held.count) rows")
            print(
                "kill -9 and resume under faults, \(count) adds: \(seen.joined(separator: "; ")); last resume: \(final.output.split(separator: "\n").filter { $0.hasPrefix("applied") }.joined())"
            )
        }
    }
}
