import FeatureServiceClient
import Foundation
import LocalFeatureServer
import Logging

/// `featureload-transport-bench`: how close featureload's libcurl transport comes to wrk on a trivial endpoint.
///
/// ```
/// featureload-transport-bench [--duration 10] [--connections 64] [--wrk-threads 2] [--output Reports/benchmarks]
/// ```
///
/// 1. Starts the local feature service in a child process (this binary with `--serve`), so the client's CPU time
///    (getrusage around the client phase) holds no server work.
/// 2. Drives `GET /arcgis/rest/info?f=json` through ``CurlTransport`` with `connections` concurrent requests for
///    `duration` seconds, recording every latency.
/// 3. Runs `wrk -t<threads> -c<connections> -d<duration>s --latency` on the same URL against the same server, then
///    the libcurl loop in C (`featureload-libcurl-loop`, when built next to this executable): the floor under the
///    transport.
/// 4. Writes `transport-<UTC time>.json` and `.md` with both request rates, the client CPU time per request and
///    the ratio.
@main
struct TransportBenchmark {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--serve" {
            try await serve()
            return
        }
        if arguments.contains("--help") || arguments.contains("-h") {
            print(UsageError.usage)
            return
        }
        // A problem is said in a line and an exit status (64 for usage), not as a crash with a backtrace.
        do {
            try await measure(Options(arguments))
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(64)
        } catch {
            FileHandle.standardError.write(Data("featureload-transport-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func measure(_ options: Options) async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/arcgis/rest/info?f=json"
        FileHandle.standardError.write(Data("server on port \(server.port); warming up\n".utf8))
        _ = try await ClientLoad.run(url: url, connections: options.connections, duration: .seconds(1))
        FileHandle.standardError.write(Data("featureload transport: \(options.connections) connections for \(options.duration) s\n".utf8))
        let client = try await ClientLoad.run(url: url, connections: options.connections, duration: .seconds(options.duration))
        FileHandle.standardError.write(Data("wrk: \(options.connections) connections for \(options.duration) s\n".utf8))
        let wrk = try WrkRun.run(url: url, threads: options.wrkThreads, connections: options.connections, duration: options.duration)
        FileHandle.standardError.write(Data("libcurl loop: \(options.connections) connections for \(options.duration) s\n".utf8))
        let loop = try LoopRun.run(url: url, connections: options.connections, duration: options.duration)
        let result = BenchmarkResult(options: options, url: url, client: client, wrk: wrk, loop: loop)
        let paths = try result.write(to: options.output)
        print(result.markdown)
        print("wrote \(paths.json) and \(paths.markdown)")
    }

    /// The child process: the local service on 127.0.0.1, port 0, over a temporary database; prints `PORT <n>`.
    static func serve() async throws {
        var logger = Logger(label: "featureload.transport-bench.server")
        logger.logLevel = .error
        let configuration = LocalFeatureServerConfiguration(host: "127.0.0.1", port: 0)
        try await runLocalFeatureServer(configuration, logger: logger) { endpoint in
            FileHandle.standardOutput.write(Data("PORT \(endpoint.port)\n".utf8))
        }
    }
}

/// Command-line options.
struct Options {
    var duration = 10
    var connections = 64
    var wrkThreads = 2
    var output = "Reports/benchmarks"

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard let value = iterator.next() else { throw UsageError(message: "\(argument) needs a value") }
            switch argument {
            case "--duration": duration = try Self.positive(value, argument)
            case "--connections": connections = try Self.positive(value, argument)
            case "--wrk-threads": wrkThreads = try Self.positive(value, argument)
            case "--output": output = value
            default: throw UsageError(message: "unknown option \(argument)")
            }
        }
    }

    private static func positive(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text), value > 0 else { throw UsageError(message: "\(name) must be a positive integer, got \(text)") }
        return value
    }
}

/// A usage or environment problem, reported before any measurement.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    static let usage = "Usage: featureload-transport-bench [--duration 10] [--connections 64] [--wrk-threads 2] [--output Reports/benchmarks]"
    var description: String { "featureload-transport-bench: \(message). \(Self.usage)" }
}

/// The local service as a child process of this binary.
final class ServerProcess {
    let process: Process
    let port: Int

    private init(process: Process, port: Int) {
        self.process = process
        self.port = port
    }

    static func start() throws -> ServerProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        process.arguments = ["--serve"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Read until the `PORT <n>` line (the server prints it once it listens).
        var buffer = Data()
        while !buffer.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw UsageError(message: "the server process exited before listening") }
            buffer.append(chunk)
        }
        let line = String(decoding: buffer, as: UTF8.self).split(separator: "\n").first ?? ""
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            process.terminate()
            throw UsageError(message: "the server process printed '\(line)' instead of its port")
        }
        return ServerProcess(process: process, port: port)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
