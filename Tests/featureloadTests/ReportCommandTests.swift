import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// `featureload report` and the JUnit report, read back by junitparser (the Python library CI reporters use).
@Suite(.serialized) struct ReportCommandTests {
    static let scenario = """
        version: 2
        name: junit-gates
        target: local
        seed: 2
        scenarios:
          fast:
            executor: shared-iterations
            vus: 2
            iterations: 20
            exec: applyEdits
            adds: 2
          reads:
            executor: shared-iterations
            vus: 2
            iterations: 10
            exec: query
            returnCountOnly: true
        thresholds:
          "http_req_duration{scenario:fast}": ["p(95)<0.001"]
          "edits{scenario:fast}": ["count==40"]
          http_reqs: ["count>=30"]
        """

    /// Reads a JUnit file with junitparser and answers `suites tests failures` and each failure's message.
    static func junitparser(_ path: String) throws -> String {
        let script = """
            import sys
            from junitparser import JUnitXml
            xml = JUnitXml.fromfile(sys.argv[1])
            suites = list(xml)
            tests = sum(s.tests for s in suites)
            failures = sum(s.failures for s in suites)
            print(len(suites), tests, failures)
            for suite in suites:
                for case in suite:
                    for result in case.result:
                        print(suite.name, "|", case.name, "|", result.message)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "junitparser (scripts/test installs it): \(problem)")
        return text
    }

    @Test("a run writes JUnit that junitparser reads: a suite per scenario, the failed threshold with its value and limit", .timeLimit(.minutes(2)))
    func junit() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/junit.yaml"
        try Self.scenario.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Featureload.run(["run", file, "--quiet", "--out", directory.path])
        #expect(result.status == 1)
        let folder = try CommandLineTests.folder(from: result.output)
        #expect(result.output.contains("report: \(folder)/report.junit.xml"))
        let parsed = try Self.junitparser(folder + "/report.junit.xml")
        let lines = parsed.split(separator: "\n").map(String.init)
        // fast: 2 thresholds, its failed-edit and failed-request gates, its verification; reads: its failed-request
        // gate (nothing to verify); run: http_reqs.
        #expect(lines.first == "3 7 1", "\(parsed)")
        let failure = try #require(lines.first { $0.hasPrefix("fast |") })
        #expect(failure.contains("http_req_duration{scenario:fast}: p(95)<0.001 failed, measured"), "\(failure)")

        // report re-renders from the saved file alone, byte for byte.
        let json = folder + "/report.json"
        for format in ["md", "junit", "json", "html"] {
            let first = try await Featureload.run(["report", json, "--format", format])
            let second = try await Featureload.run(["report", json, "--format", format])
            #expect(first.status == 0 && first.output == second.output, "\(format)")
            let written = folder + "/" + (format == "md" ? "report.md" : format == "junit" ? "report.junit.xml" : "report.\(format)")
            #expect(first.output == (try String(contentsOfFile: written, encoding: .utf8)), "\(format) matches what run wrote")
        }
        // report.json: pretty, but the time series one compact line per second, and the same data as a plain encoding.
        let saved = try Data(contentsOf: URL(fileURLWithPath: json))
        let report = try RunReport.decode(saved)
        #expect(!report.timeSeries.isEmpty)
        let text = String(decoding: saved, as: UTF8.self)
        let seriesLines = text.components(separatedBy: "\n").filter { $0.hasPrefix("    {\"busyVUs\":") }
        #expect(seriesLines.count == report.timeSeries.count, "\(text.suffix(2000))")
        let plain = JSONEncoder()
        plain.outputFormatting = [.sortedKeys]
        let same = try JSONSerialization.jsonObject(with: plain.encode(report)) as? NSDictionary
        #expect(same == (try JSONSerialization.jsonObject(with: saved) as? NSDictionary))

        let missing = try await Featureload.run(["report", directory.path + "/nope.json"])
        #expect(missing.status == 2)
        #expect(missing.errorOutput.contains("no such file"))
        let wrongFormat = try await Featureload.run(["report", json, "--format", "pdf"])
        #expect(wrongFormat.status == 64)
        #expect(wrongFormat.errorOutput.contains("md, junit, html"))
    }

    @Test("report.html stands alone: verdict and thresholds first, charts with data, no scripts or outside resources", .timeLimit(.minutes(2)))
    func html() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/junit.yaml"
        try Self.scenario.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Featureload.run(["run", file, "--quiet", "--out", directory.path])
        let folder = try CommandLineTests.folder(from: result.output)
        let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains(#"<span class="badge fail">FAIL</span>"#))
        let verdict = try #require(html.range(of: "<h2>Verdict</h2>"))
        let firstChart = try #require(html.range(of: "<svg"))
        #expect(verdict.lowerBound < firstChart.lowerBound, "the verdict comes before the charts")
        #expect(html.contains("http_req_duration{scenario:fast}") && html.contains("p(95)&lt;0.001"))
        for title in ["Throughput per second", "Request latency per second", "Latency by percentile (HDR)", "Failures per second"] {
            #expect(html.contains(#"aria-label="\#(title)""#), "\(title)")
        }
        // Every line chart has points; the throughput line has at least one point per second of each scenario.
        let polylines = html.components(separatedBy: #"<polyline points=""#).dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(!polylines.isEmpty && polylines.allSatisfy { !$0.isEmpty })
        #expect(!html.contains("<script") && !html.contains("src=") && !html.contains("href=") && !html.contains("@import"))
        // Balanced: every opened svg, table and section closes.
        for tag in ["svg", "table", "section"] {
            #expect(html.components(separatedBy: "<\(tag)").count == html.components(separatedBy: "</\(tag)>").count, "\(tag)")
        }
    }

    @Test("a version-1 report written by an earlier release (fc2f927) renders in every format, the same bytes every time")
    func versionOne() async throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/report-v1-fc2f927.json").path
        var rendered: [String: String] = [:]
        for format in ["md", "junit", "json"] {
            let first = try await Featureload.run(["report", fixture, "--format", format])
            let second = try await Featureload.run(["report", fixture, "--format", format])
            #expect(first.status == 0 && first.output == second.output && !first.output.isEmpty, "\(format): \(first.errorOutput)")
            rendered[format] = first.output
        }
        let markdown = try #require(rendered["md"])
        #expect(markdown.contains("single-edits") && markdown.contains("batched-edits"))
        #expect(markdown.contains("9.98"), "the failed speed-up gate of that run, with its value")
        let upgraded = try RunReport.decode(Data(try #require(rendered["json"]).utf8))
        #expect(upgraded.schemaVersion == 2 && upgraded.scenarios.map(\.name) == ["single-edits", "batched-edits"])
        #expect(!upgraded.verdict.passed)
        let again = try await Featureload.run(["report", fixture, "--format", "md", "-o", NSTemporaryDirectory() + "/v1-\(UUID().uuidString).md"])
        #expect(again.status == 0 && again.output.isEmpty)
    }

    @Test("--formats narrows what a run writes; report.json is always there", .timeLimit(.minutes(1)))
    func narrowed() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/junit.yaml"
        try Self.scenario.replacingOccurrences(of: "p(95)<0.001", with: "p(95)<60000").write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Featureload.run(["run", file, "--quiet", "--formats", "junit", "--out", directory.path])
        #expect(result.status == 0, "\(result.output)")
        let folder = try CommandLineTests.folder(from: result.output)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == ["report.json", "report.junit.xml"])
    }
}
