package import Foundation

/// A `featureload serve` (or `featureload-floor`) child process: started on port 0, its URL read from standard
/// output, stopped with SIGTERM.
package final class ServerProcess: @unchecked Sendable {
    package let process: Process
    /// `http://127.0.0.1:<port>/arcgis/rest/services/parks/FeatureServer`: the first service it printed.
    package var serviceURL: String { serviceURLs[0] }
    /// Every service it printed, in order (one per `--dataset`).
    package let serviceURLs: [String]
    /// The `--data` path: a file, or with several datasets a directory of `<service>.sqlite` files.
    package let databasePath: String

    /// Starts `binary serve` on a fresh database in `directory` with `arguments` added, and waits (at most 30 s)
    /// until it prints the service URL.
    package convenience init(binary: String, directory: URL, arguments: [String] = []) throws {
        let path = directory.appendingPathComponent("server.sqlite").path
        try self.init(binary: binary, arguments: ["serve", "--port", "0", "--data", path, "--log-level", "error"] + arguments, databasePath: path)
    }

    /// Starts the floor server `binary` on a fresh database in `directory`, and waits (at most 30 s) until it prints
    /// the service URL.
    package convenience init(floor binary: String, directory: URL) throws {
        let path = directory.appendingPathComponent("floor.sqlite").path
        try self.init(binary: binary, arguments: ["--data", path], databasePath: path)
    }

    /// Starts `binary` with `arguments` and waits (at most `timeout` seconds: a server that generates many rows takes
    /// a while) until it prints `services` service URLs.
    package init(binary: String, arguments: [String], databasePath: String, services: Int = 1, timeout: Double = 30) throws {
        self.databasePath = databasePath
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        // Reads on another thread: a server that never prints must not hold this one past the deadline.
        let lines = ServiceLines()
        let reader = output.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                lines.append(chunk)
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let urls = lines.urls
            if urls.count >= services {
                serviceURLs = Array(urls.prefix(services))
                return
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        if process.isRunning { process.terminate() }
        throw BenchmarkFailure("\(binary) did not report \(services) service URL(s) within \(Int(timeout)) s; output: \(lines.text)")
    }

    /// The resident set size in bytes (`VmRSS` of `/proc/<pid>/status`), or nil where /proc is missing.
    package var residentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first
        return kilobytes.map { $0 * 1024 }
    }

    /// The process's user + system CPU time in seconds (`utime` + `stime` of `/proc/<pid>/stat`), or nil where /proc
    /// is missing.
    package var cpuSeconds: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the parenthesised name start at field 3 (state); utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Sends SIGTERM and waits (at most 20 s) for a graceful exit.
    package func stop() {
        process.terminate()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// What a server printed so far, filled by the thread that reads its standard output.
private final class ServiceLines: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = ""

    func append(_ chunk: Data) { lock.withLock { buffer += String(decoding: chunk, as: UTF8.self) } }

    var text: String { lock.withLock { buffer } }

    /// The URLs of the `listening on` lines, in order.
    var urls: [String] {
        text.split(separator: "\n").compactMap { line in
            guard line.contains("listening on "), let range = line.range(of: "http") else { return nil }
            return String(line[range.lowerBound...]).trimmingCharacters(in: .whitespaces)
        }
    }
}
