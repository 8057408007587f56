import Foundation

/// A `featureload serve` child process: started on port 0, its URL read from standard output, stopped with SIGTERM.
final class ServerProcess: @unchecked Sendable {
    let process: Process
    /// `http://127.0.0.1:<port>/arcgis/rest/services/parks/FeatureServer`.
    let serviceURL: String
    let databasePath: String

    /// Starts `binary serve` on a fresh database in `directory` with `arguments` added, and waits (at most 30 s)
    /// until it prints the service URL.
    init(binary: String, directory: URL, arguments: [String] = []) throws {
        databasePath = directory.appendingPathComponent("server.sqlite").path
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "0", "--data", databasePath, "--log-level", "error"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        var text = ""
        while Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.contains("listening on ") }),
                let range = line.range(of: "http://")
            {
                serviceURL = String(line[range.lowerBound...]).trimmingCharacters(in: .whitespaces)
                return
            }
        }
        process.terminate()
        throw BenchmarkFailure("featureload serve did not report its URL within 30 s; output: \(text)")
    }

    /// The resident set size in bytes (`VmRSS` of `/proc/<pid>/status`), or nil where /proc is missing.
    var residentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first
        return kilobytes.map { $0 * 1024 }
    }

    /// Sends SIGTERM and waits (at most 20 s) for a graceful exit.
    func stop() {
        process.terminate()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Why the benchmark could not complete.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
