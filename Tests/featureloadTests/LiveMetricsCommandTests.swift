import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// `run --metrics-listen` and `serve --metrics-listen` through the binary: the endpoint's counts, scraped after the
/// run, equal the report's exactly, and the service counts the requests the run made.
@Suite struct LiveMetricsCommandTests {
    static let scenario = """
        version: 2
        name: live-metrics
        target: local
        local:
          faults: ["http503:0.2@applyEdits"]
        scenarios:
          adds:
            executor: shared-iterations
            vus: 2
            iterations: 60
            exec: applyEdits
            adds: 2
            tags:
              team: qa
        """

    @Test("run's /metrics, scraped during --metrics-linger, holds the report's requests, failures, edits and iterations", .timeLimit(.minutes(2)))
    func runEndpointMatchesTheReport() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/live.yaml"
        try Self.scenario.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try BackgroundCommand([
            "run", file, "--out", directory.path + "/out", "--formats", "md", "--metrics-listen", "127.0.0.1:0", "--metrics-linger", "60s",
            "--tag", "branch=main", "--run-id", "nightly-7",
        ])
        defer { run.stop() }
        let output = run.read { $0.contains("report.json") }
        let url = try #require(Self.metricsURL(in: output), Comment(rawValue: output))
        let report = try CommandLineTests.report(in: directory.path + "/out", output: output)
        let text = try await Self.scrape(url)
        let comment = Comment(rawValue: "\(output)\n\(text.samples.map { "\($0)" }.joined(separator: "\n"))")

        let requests = try #require(report.aggregate(.httpReqs)?.count)
        let failed = try #require(report.aggregate(.httpReqFailed)?.passes)
        #expect(requests >= 60 && failed > 0, comment)
        let labels = ["run_id": "nightly-7", "generator": "0:1", "scenario": "adds", "operation": "applyEdits", "team": "qa", "branch": "main"]
        #expect(text.sum(LiveMetricName.httpReqs, matching: labels) == requests, comment)
        #expect(text.sum(LiveMetricName.httpReqs) == requests, comment)
        #expect(text.sum(LiveMetricName.httpReqDuration + "_count", matching: labels) == requests, comment)
        #expect(text.sum(LiveMetricName.httpReqFailed, matching: labels) == failed, comment)
        #expect(text.sum(LiveMetricName.httpReqs, matching: ["status": "503"]) == failed, comment)
        #expect(text.sum(LiveMetricName.edits, matching: labels) == report.aggregate(.edits)?.count, comment)
        #expect(text.sum(LiveMetricName.iterations, matching: labels) == report.aggregate(.iterations)?.count, comment)
        #expect(text.sum(LiveMetricName.retries, matching: labels) == report.aggregate(.retries)?.count ?? 0, comment)
        #expect(text.sum(LiveMetricName.editFailed) == report.aggregate(.editFailed)?.passes ?? 0, comment)
        #expect(text.sum(LiveMetricName.vus, matching: ["scenario": "adds"]) == 0, comment)
        #expect(text.series(LiveMetricName.droppedIterations).count == 1, comment)
        // The embedded service's own view sits beside the run's: every applyEdits request, and the 503s it injected.
        #expect(text.sum("featureload_server_requests_total", matching: ["operation": "applyEdits"]) == requests, comment)
        #expect(text.sum("featureload_server_faults_injected_total", matching: ["operation": "applyEdits", "fault": "http503"]) == failed, comment)
    }

    @Test("serve's /metrics counts by operation the requests a run made, and the faults it injected", .timeLimit(.minutes(2)))
    func serveEndpointCountsTheRunsRequests() async throws {
        let directory = try TemporaryDirectory()
        let serve = try BackgroundCommand([
            "serve", "--port", "0", "--metrics-listen", "127.0.0.1:0", "--fault", "http503:0.2@applyEdits", "--fault-seed", "5",
        ])
        defer { serve.stop() }
        let started = serve.read { $0.contains("listening on ") && $0.contains("metrics: ") }
        let service = try #require(
            BackgroundCommand.serviceURL(in: started),
            Comment(rawValue: started))
        let url = try #require(Self.metricsURL(in: started), Comment(rawValue: started))
        let file = directory.path + "/live.yaml"
        try """
        version: 2
        name: live-service
        target: \(service)
        verify: false
        scenarios:
          adds:
            executor: shared-iterations
            vus: 2
            iterations: 60
            exec: applyEdits
            adds: 2
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await Featureload.run(["run", file, "--out", directory.path + "/out", "--formats", "md"])
        let output = "\(result.output)\n\(result.errorOutput)"
        #expect(result.status == 0 || result.status == 1, Comment(rawValue: output))
        let report = try CommandLineTests.report(in: directory.path + "/out", output: result.output)
        let text = try await Self.scrape(url)
        let comment = Comment(rawValue: "\(output)\n\(text.samples.map { "\($0)" }.joined(separator: "\n"))")

        let requests = try #require(report.aggregate(.httpReqs)?.count)
        let unavailable = report.aggregate(.httpReqs, filter: ["status": "503"])?.count ?? 0
        #expect(requests >= 60 && unavailable > 0, comment)
        #expect(text.sum("featureload_server_requests_total", matching: ["operation": "applyEdits"]) == requests, comment)
        #expect(text.sum("featureload_server_request_duration_seconds_count", matching: ["operation": "applyEdits"]) == requests, comment)
        #expect(text.sum("featureload_server_requests_total", matching: ["operation": "applyEdits", "status": "503"]) == unavailable, comment)
        #expect(
            text.sum("featureload_server_faults_injected_total", matching: ["operation": "applyEdits", "fault": "http503"]) == unavailable, comment)
        // The run's metadata reads are the service's too, under their own operations.
        #expect(text.sum("featureload_server_requests_total", matching: ["operation": "service"]) >= 1, comment)
    }

    @Test("apply's /metrics counts the edits, batches and requests its summary line reports", .timeLimit(.minutes(2)))
    func applyEndpointMatchesTheSummary() async throws {
        let directory = try TemporaryDirectory()
        let input = directory.path + "/parks.geojson"
        try ApplyCommandTests.geojson(120).write(toFile: input, atomically: true, encoding: .utf8)
        let apply = try BackgroundCommand([
            "apply", input, "--to", "local", "--layer", "0", "--data", directory.path + "/parks.sqlite", "--journal",
            directory.path + "/parks.journal",
            "--batch-size", "25",
            "--metrics-listen", "127.0.0.1:0", "--metrics-linger", "60s", "--run-id", "load-1",
        ])
        defer { apply.stop() }
        let output = apply.read { $0.contains("backing off") }
        let url = try #require(Self.metricsURL(in: output), Comment(rawValue: output))
        let summary = try #require(output.split(separator: "\n").first { $0.contains("backing off") }, Comment(rawValue: output + apply.errorOutput))
        let requests = try #require(summary.firstMatch(of: /; (\d+) requests?,/).flatMap { Double($0.1) }, Comment(rawValue: String(summary)))
        let text = try await Self.scrape(url)
        let comment = Comment(rawValue: "\(output)\n\(text.samples.map { "\($0)" }.joined(separator: "\n"))")
        let labels = ["run_id": "load-1", "operation": "applyEdits", "layer": "0"]
        #expect(summary.contains("applied 120 of 120 edits"), comment)
        #expect(text.sum(LiveMetricName.edits, matching: labels) == 120, comment)
        #expect(text.sum("featureload_apply_batches_total", matching: labels) == 5, comment)
        #expect(text.sum(LiveMetricName.httpReqs, matching: labels) == requests, comment)
        #expect(text.sum(LiveMetricName.editFailed, matching: labels) == 0, comment)
    }

    @Test(
        "a --metrics-listen that is not HOST:PORT, or beside --generators, is a usage error; a taken port stops the run before any load",
        .timeLimit(.minutes(2)))
    func refusals() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/live.yaml"
        try Self.scenario.write(toFile: file, atomically: true, encoding: .utf8)
        let malformed = try await Featureload.run(["run", file, "--metrics-listen", "localhost"])
        #expect(malformed.status == 64 && malformed.errorOutput.contains("is not HOST:PORT"), Comment(rawValue: malformed.errorOutput))
        let split = try await Featureload.run(["run", file, "--generators", "2", "--metrics-listen", "127.0.0.1:0"])
        #expect(split.status == 64 && split.errorOutput.contains("--execution-segment"), Comment(rawValue: split.errorOutput))
        let serve = try BackgroundCommand(["serve", "--port", "0", "--metrics-listen", "127.0.0.1:0"])
        defer { serve.stop() }
        let started = serve.read { $0.contains("metrics: ") }
        let taken = try #require(Self.metricsURL(in: started).flatMap { URL(string: $0)?.port }, Comment(rawValue: started))
        let busy = try await Featureload.run(["run", file, "--out", directory.path + "/out", "--metrics-listen", "127.0.0.1:\(taken)"])
        #expect(busy.status == 2 && busy.errorOutput.contains("could not listen on 127.0.0.1:\(taken)"), Comment(rawValue: busy.errorOutput))
        #expect(!busy.output.contains("report:"), Comment(rawValue: busy.output))
    }

    static func metricsURL(in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix("metrics: ") }.map { String($0.dropFirst("metrics: ".count)) }
    }

    static func scrape(_ url: String) async throws -> PrometheusText {
        try await withCurlTransport { transport in
            let response = try await transport.send(HTTPRequest(method: .get, url: url))
            #expect(response.status == 200)
            return PrometheusText(String(decoding: response.body, as: UTF8.self))
        }
    }
}

/// The binary running in the background, its standard output read as it comes.
final class BackgroundCommand: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()
    private let errors: TemporaryDirectory
    private var seen = ""

    init(_ arguments: [String]) throws {
        errors = try TemporaryDirectory()
        FileManager.default.createFile(atPath: errors.path + "/stderr", contents: nil)
        process.executableURL = Featureload.binary
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: errors.path + "/stderr")
        try process.run()
    }

    /// What it wrote to standard error so far, and how it ended if it has.
    var errorOutput: String {
        let text = (try? String(contentsOfFile: errors.path + "/stderr", encoding: .utf8)) ?? ""
        return process.isRunning
            ? text : text + "\n(exited: \(process.terminationStatus), \(process.terminationReason == .uncaughtSignal ? "signal" : "exit"))"
    }

    /// Reads standard output until `done` holds for all of it so far, the process ends, or 90 s pass.
    func read(until done: (String) -> Bool) -> String {
        let deadline = Date().addingTimeInterval(90)
        while !done(seen), Date() < deadline {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty {
                // The end of the output, or a read cut short while the process still runs (then try again).
                if !process.isRunning { break }
                usleep(50_000)
                continue
            }
            seen += String(decoding: data, as: UTF8.self)
        }
        return seen
    }

    /// The feature service URL of `serve`'s `listening on …` line in `output`.
    static func serviceURL(in output: String) -> String? {
        output.split(separator: "\n").first { $0.contains("listening on ") }.flatMap { $0.split(separator: " ").last.map(String.init) }
    }

    /// Stops it (SIGTERM) and waits for it to end.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
