import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// End-to-end: runs the built `featureload` binary and checks exit codes, output and report files.
@Suite(.serialized) struct CommandLineTests {
    @Test("--help, --version and every subcommand's --help explain the options", .timeLimit(.minutes(1)))
    func help() async throws {
        let root = try await Featureload.run(["--help"])
        #expect(root.status == 0)
        for word in ["run", "validate", "serve", "Exit codes"] { #expect(root.output.contains(word)) }
        let version = try await Featureload.run(["--version"])
        #expect(version.status == 0)
        #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
        let options: [String: [String]] = [
            "run": ["--target", "--out", "--data", "--quiet", "--log-level"],
            "validate": ["scenario.yaml"],
            "serve": [
                "--port", "--host", "--data", "--dataset", "--rows", "--max-record-count", "--standard-max-record-count",
                "--tile-max-record-count", "--max-request-body", "--max-attachment-size",
                "--log-level",
            ],
        ]
        for (command, words) in options {
            let help = try await Featureload.run([command, "--help"])
            #expect(help.status == 0, "\(command) --help")
            for word in words { #expect(help.output.contains(word), "\(command) --help mentions \(word)") }
        }
    }

    @Test("a broken scenario file exits 2 and names file, line, field and fix for every problem", .timeLimit(.minutes(1)))
    func brokenScenario() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/broken.yaml"
        try """
        name: broken
        target: local
        scenarios:
          single:
            executor: shared-iterations
            vus: many
            iterations: 0
        """.write(toFile: file, atomically: true, encoding: .utf8)
        for command in [["validate", file], ["run", file, "--out", directory.path]] {
            let result = try await Featureload.run(command)
            #expect(result.status == 2, "\(command[0])")
            #expect(result.errorOutput.contains("\(file):6:"))
            #expect(result.errorOutput.contains("scenarios.single.vus"))
            #expect(result.errorOutput.contains("\(file):7:"))
            #expect(result.errorOutput.contains("scenarios.single.iterations"))
            #expect(result.errorOutput.contains("Fix:"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["broken.yaml"])
    }

    @Test("a missing scenario file exits 2 with a clear message", .timeLimit(.minutes(1)))
    func missingFile() async throws {
        let result = try await Featureload.run(["run", "/nonexistent/scenario.yaml"])
        #expect(result.status == 2)
        #expect(result.errorOutput.contains("/nonexistent/scenario.yaml: no such file"))
    }

    @Test("the quickstart shape runs against the embedded service, writes both reports and verifies every add", .timeLimit(.minutes(3)))
    func runLocal() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/small.yaml"
        try Self.scenario(name: "small", minRatio: nil).write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Featureload.run(["run", file, "--out", directory.path + "/out"])
        #expect(result.status == 0, "stderr: \(result.errorOutput)")
        #expect(result.output.contains("speed-up batched vs single"))
        #expect(result.output.contains("result: PASS"))
        let report = try Self.report(in: directory.path + "/out", output: result.output)
        #expect(report.schemaVersion == RunReport.currentSchemaVersion)
        #expect(report.target.kind == "local")
        #expect(report.verdict.passed)
        #expect(report.scenarios.map(\.name) == ["single", "batched"])
        for scenario in report.views {
            #expect(scenario.editsApplied == 60)
            #expect(scenario.editsFailed == 0)
            #expect(report.aggregate(.httpReqDuration, filter: ["scenario": scenario.name])?.histogram?.count == UInt64(scenario.requests))
            let verification = try #require(scenario.record.verification)
            #expect(verification.passed)
            #expect(verification.foundByObjectId == 60)
            #expect((verification.layerCountAfter ?? 0) - (verification.layerCountBefore ?? 0) == 60)
        }
        #expect(report.views[0].requests == 60)
        #expect(report.views[1].requests == 6)
        #expect(report.comparisons.count == 1)
        let markdown = try String(contentsOfFile: Self.folder(from: result.output) + "/report.md", encoding: .utf8)
        #expect(markdown.contains("# small: PASS"))
        #expect(markdown.contains("| batched |"))
    }

    @Test("a failed gate exits 1 and still writes the reports", .timeLimit(.minutes(3)))
    func failedGate() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/gate.yaml"
        try Self.scenario(name: "gate", minRatio: 1_000_000).write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Featureload.run(["run", file, "--out", directory.path + "/out"])
        #expect(result.status == 1)
        #expect(result.output.contains("result: FAIL"))
        let report = try Self.report(in: directory.path + "/out", output: result.output)
        #expect(!report.verdict.passed)
        #expect(report.verdict.failures.count == 1)
        #expect(report.verdict.failures.first?.contains("below the required") == true)
        let markdown = try String(contentsOfFile: Self.folder(from: result.output) + "/report.md", encoding: .utf8)
        #expect(markdown.contains("# gate: FAIL"), "\(markdown.prefix(300))")
    }

    @Test("an unreachable live target exits 2 naming the URL", .timeLimit(.minutes(1)))
    func unreachableTarget() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/live.yaml"
        try Self.scenario(name: "live", minRatio: nil).write(toFile: file, atomically: true, encoding: .utf8)
        let url = "http://127.0.0.1:1/arcgis/rest/services/parks/FeatureServer"
        let result = try await Featureload.run(["run", file, "--target", url, "--out", directory.path])
        #expect(result.status == 2)
        #expect(result.errorOutput.contains(url))
    }

    @Test("Ctrl-C stops a run, still writes the reports and exits 130", .timeLimit(.minutes(2)))
    func interrupted() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/long.yaml"
        try """
        version: 1
        name: long
        target: local
        scenarios:
          endless:
            executor: shared-iterations
            vus: 2
            iterations: 10000000
            maxDuration: 60s
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = Featureload.binary
        process.arguments = ["run", file, "--out", directory.path + "/out"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var seen = ""
        let deadline = Date().addingTimeInterval(30)
        while !seen.contains("running endless"), Date() < deadline {
            seen += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        }
        #expect(seen.contains("running endless"))
        usleep(300_000)
        process.interrupt()
        seen += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let report = try Self.report(in: directory.path + "/out", output: seen)
        #expect(!report.verdict.passed)
        #expect(report.verdict.failures.first?.contains("interrupted") == true)
        #expect(report.scenarios.first?.stopReason == .cancelled)
        #expect((report.views.first?.editsApplied ?? 0) > 0)
        let markdown = try String(contentsOfFile: Self.folder(from: seen) + "/report.md", encoding: .utf8)
        #expect(markdown.contains("# long: FAIL"), "\(markdown.prefix(300))")
        #expect(markdown.contains("interrupted"))
    }

    static func scenario(name: String, minRatio: Double?) -> String {
        """
        version: 1
        name: \(name)
        target: local
        seed: 3
        scenarios:
          single:
            executor: shared-iterations
            vus: 4
            iterations: 60
            batchSize: 1
          batched:
            executor: shared-iterations
            vus: 4
            iterations: 6
            batchSize: 10
        compare:
          - baseline: single
            candidate: batched
        \(minRatio.map { "    min: \($0)" } ?? "")
        """
    }

    static func folder(from output: String) throws -> String {
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("report: ") && $0.hasSuffix("report.json") })
        return String(line.dropFirst("report: ".count).dropLast("/report.json".count))
    }

    static func report(in root: String, output: String) throws -> RunReport {
        let folder = try folder(from: output)
        #expect(folder.hasPrefix(root))
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/report.json"))
        return try JSONDecoder().decode(RunReport.self, from: data)
    }
}

/// Runs the built `featureload` executable.
enum Featureload {
    struct Result {
        var status: Int32
        var output: String
        var errorOutput: String
    }

    /// The binary beside the test bundle (both are products of the same build).
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["FEATURELOAD_BINARY"] { return URL(fileURLWithPath: path) }
        let testExecutable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        var directory = testExecutable.deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("featureload")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return testExecutable.deletingLastPathComponent().appendingPathComponent("featureload")
    }

    /// Runs the binary on a thread of its own, so waiting for it never holds one of the few threads Swift
    /// concurrency runs every other test on.
    /// - Parameter directory: The working directory (default: the tests').
    static func run(_ arguments: [String], environment: [String: String] = [:], directory: String? = nil) async throws -> Result {
        try await runTool(binary.path, arguments, environment: environment, directory: directory)
    }

    /// Runs any executable the same way (e.g. a Python harness around the binary).
    static func runTool(
        _ path: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(
                    with: Result2 {
                        try runBlocking(arguments, environment: environment, executable: URL(fileURLWithPath: path), directory: directory)
                    }.result)
            }
            thread.start()
        }
    }

    /// A thrown error or a value, made from a throwing closure.
    private struct Result2 {
        let result: Swift.Result<Featureload.Result, any Error>
        init(_ body: () throws -> Featureload.Result) {
            do { result = .success(try body()) } catch { result = .failure(error) }
        }
    }

    static func runBlocking(
        _ arguments: [String], environment: [String: String] = [:], executable: URL? = nil, directory: String? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable ?? binary
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both pipes to the end before waiting, so a full pipe cannot block the child.
        let errorData = Mutexed<Data>()
        let thread = Thread { errorData.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        thread.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while errorData.get() == nil { usleep(1000) }
        return Result(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            errorOutput: String(decoding: errorData.get() ?? Data(), as: UTF8.self))
    }
}

/// A value set once from another thread.
final class Mutexed<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value?
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func get() -> Value? { lock.withLock { value } }
}

/// A temporary directory removed when the value goes away.
@Suite struct ValidateLocalTests {
    @Test("validate finds what run would refuse on a local target: bad faults with their lines, a layer the dataset lacks", .timeLimit(.minutes(1)))
    func localProblems() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/bad.yaml"
        try """
        version: 2
        name: bad
        target: local
        local:
          faults: ["http503:lots", "nosuch:0.1"]
          latency: "fixed:abc"
        scenarios:
          s:
            executor: shared-iterations
            vus: 1
            iterations: 1
            exec: queryRelatedRecords
            layer: 7
        """.write(toFile: file, atomically: true, encoding: .utf8)
        for command in [["validate", file], ["run", file, "--out", directory.path + "/out"]] {
            let result = try await Featureload.run(command)
            #expect(result.status == 2, "\(command[0])")
            #expect(result.errorOutput.contains("\(file):5:12: local.faults[0]"), "\(command[0]): \(result.errorOutput)")
            #expect(result.errorOutput.contains("\(file):5:28: local.faults[1]"))
            #expect(result.errorOutput.contains("\(file):6:12: local.latency"))
            if command[0] == "validate" {
                #expect(result.errorOutput.contains("scenarios.s.layer: the service has no layer or table with id 7"))
                #expect(!result.output.contains("ok"))
            }
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/out"))
    }

    @Test("validate --target local checks a live file against the embedded dataset, as run --target local would run it", .timeLimit(.minutes(1)))
    func targetOverride() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/live.yaml"
        try """
        version: 2
        name: live
        target: https://gis.example/arcgis/rest/services/Roads/FeatureServer
        scenarios:
          s:
            executor: shared-iterations
            vus: 1
            iterations: 1
            exec: queryRelatedRecords
            layer: 7
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let live = try await Featureload.run(["validate", file])
        #expect(live.status == 0, "a live target's layers are not known offline: \(live.errorOutput)")
        let local = try await Featureload.run(["validate", file, "--target", "local"])
        #expect(local.status == 2)
        #expect(local.errorOutput.contains("scenarios.s.layer: the service has no layer or table with id 7"), "\(local.errorOutput)")
        let bad = try await Featureload.run(["validate", file, "--target", "https://gis.example/arcgis"])
        #expect(bad.status == 64 && bad.errorOutput.contains("--target"), "\(bad.errorOutput)")
    }

    @Test("--start-at more than 24 hours away is refused at once, not waited for")
    func farStart() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/s.yaml"
        try "scenarios:\n  s:\n    executor: shared-iterations\n    vus: 1\n    iterations: 1\n    exec: query\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let far = try await Featureload.run(["run", file, "--start-at", "9999-12-31T23:59:59Z", "--out", directory.path + "/out"])
        #expect(far.status == 64, "\(far.errorOutput)")
        #expect(far.errorOutput.contains("--start-at 9999-12-31T23:59:59Z is more than 24 hours away"), "\(far.errorOutput)")
    }
}

@Suite struct ThresholdCommandTests {
    static func file(_ thresholds: String, in directory: String) throws -> String {
        let file = directory + "/gate.yaml"
        try """
        version: 2
        name: gate
        target: local
        scenarios:
          w:
            executor: shared-iterations
            vus: 2
            iterations: 20
        thresholds:
        \(thresholds)
        """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test("an impossible threshold exits 1 and names itself; a misspelt metric exits 2 before anything runs", .timeLimit(.minutes(1)))
    func gates() async throws {
        let directory = try TemporaryDirectory()
        let impossible = try Self.file("  \"http_req_duration{scenario:w}\": [\"p(95)<0.001\"]", in: directory.path)
        let failed = try await Featureload.run(["run", impossible, "--quiet", "--out", directory.path + "/out"])
        #expect(failed.status == 1)
        #expect(failed.output.contains("http_req_duration{scenario:w}") && failed.output.contains("p(95)<0.001"), "\(failed.output)")

        let typo = try Self.file("  http_req_duraton: [\"p(95)<200\"]", in: directory.path)
        for command in [["validate", typo], ["run", typo, "--out", directory.path + "/out2"]] {
            let result = try await Featureload.run(command)
            #expect(result.status == 2, "\(command[0])")
            #expect(result.errorOutput.contains("thresholds.http_req_duraton"), "\(result.errorOutput)")
            #expect(result.errorOutput.contains("http_req_duration"), "suggests the right name")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/out2"))
    }
}
