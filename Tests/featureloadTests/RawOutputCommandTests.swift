import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// `run --out csv=FILE` and `--out json=FILE[.gz]` through the binary: one line per request, matching the report.
@Suite struct RawOutputCommandTests {
    static let scenario = """
        version: 2
        name: raw-samples
        target: local
        local:
          faults: ["http503:0.2@applyEdits"]
        scenarios:
          "adds, quoted":
            executor: shared-iterations
            vus: 2
            iterations: 150
            exec: applyEdits
            adds: 2
            tags:
              team: "qa & perf"
        """

    @Test("csv and gzipped json have one line per request, and their columns sum to the report's totals", .timeLimit(.minutes(2)))
    func linesMatchTheReport() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/raw.yaml"
        try Self.scenario.write(toFile: file, atomically: true, encoding: .utf8)
        // In a folder that does not exist yet, as in the README's CI jobs: it is made.
        let csvPath = directory.path + "/perf/samples.csv"
        let jsonPath = directory.path + "/samples.json.gz"
        let result = try await Featureload.run([
            "run", file, "--out", directory.path + "/out", "--out", "csv=" + csvPath, "--out", "json=" + jsonPath, "--formats", "md",
            "--tag", "branch=main",
        ])
        let output = "\(result.output)\n\(result.errorOutput)"
        #expect(result.status == 0 || result.status == 1, Comment(rawValue: output))
        let report = try CommandLineTests.report(in: directory.path + "/out", output: result.output)
        let requests = Int(try #require(report.aggregate(.httpReqs, filter: [:])?.count))
        let failed = Int(try #require(report.aggregate(.httpReqFailed, filter: [:])?.passes))
        let edits = Int(try #require(report.aggregate(.edits, filter: [:])?.count))
        let retries = Int(report.aggregate(.retries, filter: [:])?.count ?? 0)
        #expect(requests >= 150 && failed > 0, Comment(rawValue: "requests \(requests), failed \(failed): the faults should fail some"))

        let csv = try String(contentsOfFile: csvPath, encoding: .utf8)
        let lines = csv.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.first == Substring(RawSampleDestination.columns.joined(separator: ",")))
        let rows = lines.dropFirst().map(Self.csvFields)
        #expect(rows.count == requests)
        #expect(rows.allSatisfy { $0.count == RawSampleDestination.columns.count })
        let column = { (name: String) in RawSampleDestination.columns.firstIndex(of: name)! }
        #expect(rows.allSatisfy { $0[column("scenario")] == "adds, quoted" && $0[column("operation")] == "applyEdits" })
        #expect(rows.allSatisfy { $0[column("tags")] == "branch=main&team=qa %26 perf" })
        #expect(rows.reduce(0) { $0 + Int($1[column("edits")])! } == edits)
        #expect(rows.reduce(0) { $0 + Int($1[column("retries")])! } == retries)
        #expect(rows.filter { $0[column("failed")] == "1" }.count == failed)
        #expect(rows.filter { $0[column("status")] == "503" }.count == failed)
        let now = Date().timeIntervalSince1970
        #expect(rows.allSatisfy { abs(Double($0[column("timestamp")])! - now) < 600 && Double($0[column("duration_ms")])! > 0 })

        let json = try Self.gunzip(jsonPath)
        let objects = try json.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == requests)
        #expect(objects.allSatisfy { Set($0.keys) == Set(RawSampleDestination.columns) })
        #expect(objects.reduce(0) { $0 + ($1["edits"] as? Int ?? -1_000_000) } == edits)
        #expect(objects.filter { $0["failed"] as? Bool == true }.count == failed)
        #expect(objects.allSatisfy { ($0["tags"] as? [String: String]) == ["team": "qa & perf", "branch": "main"] })
    }

    @Test("--generators 2 writes one csv with a single header and a line per request of both", .timeLimit(.minutes(2)))
    func generatorsMergeIntoOneFile() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/raw.yaml"
        try Self.scenario.write(toFile: file, atomically: true, encoding: .utf8)
        let csvPath = directory.path + "/samples.csv.gz"
        let result = try await Featureload.run([
            "run", file, "--generators", "2", "--out", directory.path + "/out", "--out", "csv=" + csvPath, "--formats", "md",
        ])
        #expect(result.status == 0 || result.status == 1, Comment(rawValue: "\(result.output)\n\(result.errorOutput)"))
        let report = try CommandLineTests.report(in: directory.path + "/out", output: result.output)
        let requests = Int(try #require(report.aggregate(.httpReqs, filter: [:])?.count))
        let lines = try Self.gunzip(csvPath).split(separator: "\n")
        #expect(lines.first == Substring(RawSampleDestination.columns.joined(separator: ",")))
        #expect(lines.filter { $0.hasPrefix("timestamp,") }.count == 1)
        #expect(lines.count - 1 == requests)
    }

    @Test("an --out file that cannot be created is refused before the run, naming it")
    func unwritableFileIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/raw.yaml"
        try Self.scenario.write(toFile: file, atomically: true, encoding: .utf8)
        // A folder that cannot be made: its parent is a file.
        try "".write(toFile: directory.path + "/plain-file", atomically: true, encoding: .utf8)
        let blocked = directory.path + "/plain-file/samples.csv"
        let result = try await Featureload.run(["run", file, "--out", directory.path + "/out", "--out", "csv=" + blocked])
        #expect(result.status == 2, Comment(rawValue: "\(result.output)\n\(result.errorOutput)"))
        #expect(result.errorOutput.contains(blocked), Comment(rawValue: result.errorOutput))
        #expect(!result.output.contains("running "), Comment(rawValue: result.output))
    }

    /// The fields of a CSV line (RFC 4180 quotes).
    static func csvFields(_ line: Substring) -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var iterator = line.makeIterator()
        while let character = iterator.next() {
            if quoted {
                if character == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" {
                            field.append("\"")
                        } else {
                            quoted = false
                            if next == "," {
                                fields.append(field)
                                field = ""
                            } else {
                                field.append(next)
                            }
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                fields.append(field)
                field = ""
            } else {
                field.append(character)
            }
        }
        fields.append(field)
        return fields
    }

    /// The text of a gzip file, decompressed by the system's gzip (an independent reader).
    static func gunzip(_ path: String) throws -> String {
        let result = try Featureload.runBlocking(["-dc", path], executable: URL(fileURLWithPath: "/bin/gzip"))
        #expect(result.status == 0, Comment(rawValue: result.errorOutput))
        return result.output
    }
}
