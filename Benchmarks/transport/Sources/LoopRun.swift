import Foundation

/// One run of `featureload-libcurl-loop`, the same closed loop in C over libcurl with nothing of featureload in it: the
/// most a libcurl-based client reaches on this endpoint and machine.
struct LoopRun {
    var requestsPerSecond: Double
    var requests: Int
    var errors: Int
    var cpuPerRequest: Duration
    var p50: Duration
    var p99: Duration
    var command: String

    /// The loop next to this benchmark's executable (`FEATURELOAD_BENCHMARKS=1 swift build -c release --product featureload-libcurl-loop`).
    static var executable: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent()
            .appendingPathComponent("featureload-libcurl-loop").path
    }

    /// Runs the loop, or returns nil when it is not built.
    static func run(url: String, connections: Int, duration: Int) throws -> LoopRun? {
        guard FileManager.default.isExecutableFile(atPath: executable) else { return nil }
        let arguments = [url, String(connections), String(duration)]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0, var run = parse(output) else {
            throw UsageError(message: "featureload-libcurl-loop failed (exit \(process.terminationStatus)). Output:\n\(output)")
        }
        run.command = "featureload-libcurl-loop " + arguments.joined(separator: " ")
        return run
    }

    /// Reads the loop's `LIBCURL_LOOP_JSON {...}` line; nil when there is none.
    static func parse(_ output: String) -> LoopRun? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("LIBCURL_LOOP_JSON ") }),
            let object = try? JSONSerialization.jsonObject(with: Data(line.dropFirst("LIBCURL_LOOP_JSON ".count).utf8)) as? [String: Any],
            let duration = (object["durationMicroseconds"] as? NSNumber)?.doubleValue, duration > 0,
            let requests = (object["requests"] as? NSNumber)?.intValue,
            let cpu = (object["cpuMicroseconds"] as? NSNumber)?.doubleValue,
            let latency = object["latencyMicroseconds"] as? [String: Any]
        else { return nil }
        func microseconds(_ value: Any?) -> Duration { .microseconds(Int64((value as? NSNumber)?.doubleValue ?? 0)) }
        return LoopRun(
            requestsPerSecond: Double(requests) / (duration / 1e6), requests: requests,
            errors: (object["errors"] as? NSNumber)?.intValue ?? 0,
            cpuPerRequest: requests == 0 ? .zero : .microseconds(Int64(cpu / Double(requests))),
            p50: microseconds(latency["p50"]), p99: microseconds(latency["p99"]), command: "")
    }
}
