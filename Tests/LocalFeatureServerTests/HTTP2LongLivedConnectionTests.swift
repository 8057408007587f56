import FeatureModel
import FeatureServiceClient
import Foundation
import LocalFeatureServer
import Logging
import Testing

/// Long-lived HTTP/2 connections with real clients (the curl command and libcurl through CurlTransport) against the
/// HTTPS listener on port 0. Before: each response ended in an empty DATA frame of its own, libcurl reset every
/// answered stream, and swift-nio-http2's rapid-reset limit (200 resets in 30 s) closed the connection at the 201st:
/// one request in every 202 on a connection failed with "Error in the HTTP2 framing layer".
@Suite(.serialized) struct HTTP2LongLivedConnectionTests {
    static func withHTTPSServer<T: Sendable>(_ body: @Sendable (LocalFeatureServerEndpoint) async throws -> T) async throws -> T {
        var configuration = LocalFeatureServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.tls = .init(certificate: .selfSigned)
        return try await withLocalFeatureServer(configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), body)
    }

    @Test("curl --http2 with 1,500 queries in one config file: one connection, no error", .timeLimit(.minutes(5)))
    func curlConfigFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await Self.withHTTPSServer { endpoint in
            let url = endpoint.serviceURL("parks") + "/0/query?where=1%3D1&outFields=*&f=json"
            let config = directory.path("requests.curl")
            let errors = directory.path("errors.txt")
            let lines = (0..<1_500).map { _ in "url = \"\(url)\"\noutput = /dev/null\n" }.joined()
            try lines.write(toFile: config, atomically: true, encoding: .utf8)
            let run = try await CurlCommand.run([
                "--http2", "--cacert", try #require(endpoint.certificatePath), "--silent", "--show-error", "--stderr", errors, "--max-time", "240",
                "-K", config,
                "--write-out", "%{http_code} %{http_version} %{num_connects}\\n",
            ])
            let answers = run.output.split(separator: "\n")
            let failures = try String(contentsOfFile: errors, encoding: .utf8).split(separator: "\n")
            #expect(run.status == 0 && failures.isEmpty, "\(failures.count) failed, e.g. \(failures.prefix(3)); \(run.errorOutput)")
            #expect(answers.count == 1_500)
            #expect(answers.allSatisfy { $0.hasPrefix("200 2 ") }, "\(answers.filter { !$0.hasPrefix("200 2 ") }.prefix(3))")
            // The first transfer connects; every other reuses that connection.
            let connects: [Int] = answers.map { answer in Int(answer.split(separator: " ").last ?? "") ?? -1 }
            #expect(connects.reduce(0, +) == 1, "\(connects.filter { $0 != 0 }.count) transfers connected")
        }
    }

    @Test("libcurl: 20,000 requests, 8 at a time, over long-lived HTTP/2 connections, no error", .timeLimit(.minutes(8)))
    func twentyThousand() async throws {
        try await Self.withHTTPSServer { endpoint in
            let configuration = CurlTransportConfiguration(httpVersion: .automatic, tls: .init(caFile: try #require(endpoint.certificatePath)))
            try await withCurlTransport(configuration: configuration) { transport in
                let url = endpoint.serviceURL("parks") + "?f=json"
                let (total, failures) = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            var failures: [String] = []
                            for _ in 0..<2_500 {
                                do {
                                    let response = try await transport.send(HTTPRequest(url: url))
                                    if response.status != 200 || response.httpVersion != .http2 {
                                        failures.append("\(response.status) \(String(describing: response.httpVersion))")
                                    }
                                } catch {
                                    failures.append("\(error)")
                                }
                            }
                            return (2_500, failures)
                        }
                    }
                    var total = 0
                    var failures: [String] = []
                    for try await (count, failed) in group {
                        total += count
                        failures += failed
                    }
                    return (total, failures)
                }
                #expect(total == 20_000)
                let failed = failures.count
                #expect(failed == 0, "e.g. \(failures.prefix(3))")
                // Multiplexed on long-lived connections: before, one closed every 201 requests (about 100 in all).
                #expect(transport.statistics.connectionsOpened <= 8, "\(transport.statistics)")
            }
        }
    }
}

/// The `curl` command, run on a thread of its own so that waiting for it holds none of Swift concurrency's threads
/// (by ``ChildProcess``: this process holds well over a thousand descriptors while the suites run in parallel).
enum CurlCommand {
    struct Result: Sendable {
        var status: Int32
        var output: String
        var errorOutput: String
    }

    static func run(_ arguments: [String]) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                do {
                    let result = try ChildProcess.run(["curl"] + arguments)
                    continuation.resume(
                        returning: Result(
                            status: result.status, output: String(decoding: result.output, as: UTF8.self),
                            errorOutput: String(decoding: result.errors, as: UTF8.self)))
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
    }
}
