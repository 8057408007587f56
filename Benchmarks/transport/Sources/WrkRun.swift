import Foundation

/// One `wrk` run and what its output says.
struct WrkRun {
    var requestsPerSecond: Double
    var requests: Int
    var nonSuccess: Int
    var socketErrors: String?
    /// Latency percentiles from `--latency`, by label (`50%`, `75%`, `90%`, `99%`), in milliseconds.
    var percentiles: [String: Double]
    var command: String
    var output: String

    static func run(url: String, threads: Int, connections: Int, duration: Int) throws -> WrkRun {
        let arguments = ["-t\(threads)", "-c\(connections)", "-d\(duration)s", "--latency", url]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["wrk"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        do {
            try process.run()
        } catch {
            throw UsageError(message: "wrk could not be started (\(error)); install it with scripts/install-deps --bench")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0, let parsed = parse(output) else {
            throw UsageError(
                message: "wrk failed (exit \(process.terminationStatus)); install it with scripts/install-deps --bench. Output:\n\(output)")
        }
        var run = parsed
        run.command = "wrk " + arguments.joined(separator: " ")
        return run
    }

    /// Parses wrk's text output; `nil` when it holds no `Requests/sec:` line.
    static func parse(_ output: String) -> WrkRun? {
        var rate: Double?
        var requests = 0
        var nonSuccess = 0
        var socketErrors: String?
        var percentiles: [String: Double] = [:]
        for line in output.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            if line.hasPrefix("Requests/sec:"), words.count >= 2 { rate = Double(words[1]) }
            if line.contains("requests in"), let first = words.first { requests = Int(first) ?? 0 }
            if line.hasPrefix("Non-2xx or 3xx responses:"), let last = words.last { nonSuccess = Int(last) ?? 0 }
            if line.hasPrefix("Socket errors:") { socketErrors = line }
            if words.count == 2, ["50%", "75%", "90%", "99%"].contains(words[0]), let value = milliseconds(words[1]) {
                percentiles[words[0]] = value
            }
        }
        guard let rate else { return nil }
        return WrkRun(
            requestsPerSecond: rate, requests: requests, nonSuccess: nonSuccess, socketErrors: socketErrors,
            percentiles: percentiles, command: "", output: output)
    }

    /// `812.00us`, `1.20ms`, `2.01s` in milliseconds.
    static func milliseconds(_ text: String) -> Double? {
        for (suffix, factor) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0), ("m", 60_000.0)] where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { $0 * factor }
        }
        return nil
    }
}
