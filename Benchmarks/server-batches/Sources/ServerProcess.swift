import Foundation

/// A `featureload serve` (or `featureload-floor`) child process: started on port 0, its URL read from standard
/// output, stopped with SIGTERM.
final class ServerProcess: @unchecked Sendable {
    let process: Process
    /// `http://127.0.0.1:<port>/arcgis/rest/services/parks/FeatureServer`.
    let serviceURL: String
    let databasePath: String

    /// Starts `binary serve` on a fresh database in `directory` with `arguments` added, and waits (at most 30 s)
    /// until it prints the service URL.
    convenience init(binary: String, directory: URL, arguments: [String] = []) throws {
        let path = directory.appendingPathComponent("server.sqlite").path
        try self.init(binary: binary, arguments: ["serve", "--port", "0", "--data", path, "--log-level", "error"] + arguments, databasePath: path)
    }

    /// Starts the floor server `binary` on a fresh database in `directory`, and waits (at most 30 s) until it prints
    /// the service URL.
    convenience init(floor binary: String, directory: URL) throws {
        let path = directory.appendingPathComponent("floor.sqlite").path
        try self.init(binary: binary, arguments: ["--data", path], databasePath: path)
    }

    private init(binary: String, arguments: [String], databasePath: String) throws {
        self.databasePath = databasePath
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
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
        throw BenchmarkFailure("\(binary) did not report its URL within 30 s; output: \(text)")
    }

    /// The resident set size in bytes (`VmRSS` of `/proc/<pid>/status`), or nil where /proc is missing.
    var residentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first
        return kilobytes.map { $0 * 1024 }
    }

    /// The process's user + system CPU time in seconds (`utime` + `stime` of `/proc/<pid>/stat`), or nil where /proc
    /// is missing.
    var cpuSeconds: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the parenthesised name start at field 3 (state); utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
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
