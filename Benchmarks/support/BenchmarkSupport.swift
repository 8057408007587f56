import Foundation

/// Why the benchmark could not complete.
package struct BenchmarkFailure: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// The machine's 1, 5 and 15 minute load averages (`/proc/loadavg`), or nil where it is missing.
package func loadAverage() -> [Double]? {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
    let values = text.split(separator: " ").prefix(3).compactMap { Double($0) }
    return values.count == 3 ? values : nil
}

/// The executable `name` in the running one's directory.
package func siblingBinary(_ name: String) -> String {
    let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    return me.deletingLastPathComponent().appendingPathComponent(name).path
}

/// Progress on standard error, after the program's name.
package func log(_ text: String) {
    let program = URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
    FileHandle.standardError.write(Data("\(program): \(text)\n".utf8))
}

/// Writes a benchmark's `<name>-<time>.json` (pretty, sorted keys) and `.md` into `directory`; returns their paths.
/// `startedAt` is the run's ISO 8601 start, made into the file names' time.
package func writeReport(_ result: some Encodable, markdown: String, name: String, startedAt: String, to directory: String) throws -> (String, String)
{
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let stamp = startedAt.replacingOccurrences(of: ":", with: "").replacingOccurrences(of: "-", with: "")
    let base = URL(fileURLWithPath: directory).appendingPathComponent("\(name)-\(stamp)")
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let json = base.appendingPathExtension("json")
    let markdownURL = base.appendingPathExtension("md")
    try encoder.encode(result).write(to: json)
    try Data(markdown.utf8).write(to: markdownURL)
    return (json.path, markdownURL.path)
}
