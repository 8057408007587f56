import FeatureloadTestSupport
import Foundation
import Testing

/// Out-of-range numbers given to the binary (issue 32, item 4): a clear error naming what to change, never a
/// crash. Saved reports and scenario files are invalid input (exit 2); option values are usage errors (exit 64, as
/// every bad option value is).
@Suite struct HostileNumberCommandTests {
    static let legacy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/report-v1-fc2f927.json").path

    /// The saved version-1 fixture in the current schema, as a JSON object.
    static func currentReport(in directory: TemporaryDirectory) async throws -> [String: Any] {
        let path = directory.path + "/current.json"
        let result = try await Featureload.run(["report", legacy, "--format", "json", "-o", path])
        #expect(result.status == 0, "\(result.errorOutput)")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    static func write(_ object: [String: Any], to path: String) throws {
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
    }

    /// `report` with the first metric series' count set to `count` and the segment set to `segment`.
    static func with(count: NSNumber, segment: String, _ report: [String: Any]) throws -> [String: Any] {
        var report = report
        var metrics = try #require(report["metrics"] as? [[String: Any]])
        metrics[0]["count"] = count
        report["metrics"] = metrics
        report["segment"] = segment
        report["segmentSequence"] = "0,1/2,1"
        return report
    }

    @Test("report render, compare and merge of counts of 2^63-1, or each of 2^62+2^61, exit 2 naming the field", .timeLimit(.minutes(1)))
    func reports() async throws {
        let directory = try TemporaryDirectory()
        let report = try await Self.currentReport(in: directory)
        let huge = directory.path + "/huge.json"
        try Self.write(try Self.with(count: NSNumber(value: Int64.max), segment: "0:1", report), to: huge)
        for arguments in [["report", huge], ["report", huge, "--format", "html"], ["compare", Self.legacy, huge]] {
            let result = try await Featureload.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.status) \(result.errorOutput)")
            #expect(result.errorOutput.contains("metrics[0]") && result.errorOutput.contains("2^53"), "\(result.errorOutput)")
        }

        let big = NSNumber(value: (1 << 62) + (1 << 61) as Int64)
        let first = directory.path + "/a.json"
        let second = directory.path + "/b.json"
        try Self.write(try Self.with(count: big, segment: "0:1/2", report), to: first)
        try Self.write(try Self.with(count: big, segment: "1/2:1", report), to: second)
        let merged = try await Featureload.run(["report", "merge", first, second])
        #expect(merged.status == 2 && merged.errorOutput.contains("metrics[0]"), "\(merged.status) \(merged.errorOutput)")

        // Each in range, their sum not: the merge refuses rather than overflow.
        let half = NSNumber(value: Double((1 as UInt64) << 52 + (1 as UInt64) << 51))
        try Self.write(try Self.with(count: half, segment: "0:1/2", report), to: first)
        try Self.write(try Self.with(count: half, segment: "1/2:1", report), to: second)
        let sum = try await Featureload.run(["report", "merge", first, second])
        #expect(sum.status == 2 && sum.errorOutput.contains("add up to more than"), "\(sum.status) \(sum.errorOutput)")

        var negative = report
        negative["schemaVersion"] = -1
        let invalid = directory.path + "/invalid.json"
        try Self.write(negative, to: invalid)
        for arguments in [["report", invalid], ["report", "merge", invalid, invalid]] {
            let result = try await Featureload.run(arguments)
            #expect(result.status == 2 && result.errorOutput.contains("schema version -1 is invalid"), "\(arguments): \(result.errorOutput)")
        }
    }

    @Test("a scenario duration of 99999999999999999999ms is an invalid file for validate and run", .timeLimit(.minutes(1)))
    func scenarioDuration() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/long.yaml"
        try """
        version: 2
        name: long
        target: local
        scenarios:
          s:
            executor: constant-vus
            vus: 1
            duration: 99999999999999999999ms
            exec: query
        """.write(toFile: file, atomically: true, encoding: .utf8)
        for arguments in [["validate", file], ["run", file, "--out", directory.path + "/reports"]] {
            let command = arguments[0]
            let result = try await Featureload.run(arguments)
            #expect(result.status == 2, "\(command): \(result.status) \(result.errorOutput)")
            #expect(result.errorOutput.contains("scenarios.s.duration") && result.errorOutput.contains("8760h"), "\(command): \(result.errorOutput)")
        }
    }

    @Test(
        "--request-timeout, --wait-for-service and --progress-interval of 99999999999999999999h name the option and the limit",
        .timeLimit(.minutes(1)))
    func options() async throws {
        let directory = try TemporaryDirectory()
        let input = directory.path + "/one.geojson"
        try #"{"type":"FeatureCollection","features":[]}"#.write(toFile: input, atomically: true, encoding: .utf8)
        let scenario = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scenarios/quickstart.yaml").path
        let cases: [(String, [String])] = [
            ("--request-timeout", ["run", scenario, "--request-timeout", "99999999999999999999h"]),
            ("--progress-interval", ["run", scenario, "--progress-interval", "99999999999999999999h"]),
            ("--wait-for-service", ["apply", input, "--to", "local", "--layer", "0", "--wait-for-service", "99999999999999999999h"]),
            ("--request-timeout", ["apply", input, "--to", "local", "--layer", "0", "--request-timeout", "99999999999999999999h"]),
        ]
        for (option, arguments) in cases {
            let result = try await Featureload.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.status) \(result.errorOutput)")
            #expect(result.errorOutput.contains(option) && result.errorOutput.contains("at most 8760h"), "\(arguments): \(result.errorOutput)")
        }
    }
}
