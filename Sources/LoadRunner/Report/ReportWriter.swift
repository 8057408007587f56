import Foundation

/// Writes a run's report files (``ReportFormat``) into a new folder.
public enum ReportWriter {
    /// Checks before a run that report folders can be made under `root` (creating it), so a long run never ends
    /// without a place for its report.
    /// - Throws: ``LoadRunnerError`` naming the folder and the fix.
    public static func checkWritable(_ root: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let probe = "\(root)/.featureload-write-check-\(ProcessInfo.processInfo.processIdentifier)"
            try Data().write(to: URL(fileURLWithPath: probe))
            try FileManager.default.removeItem(atPath: probe)
        } catch {
            throw LoadRunnerError("--out \(root): cannot write reports there (\(error.localizedDescription)). Fix: give a writable directory")
        }
    }

    /// Creates `<root>/<plan>-<UTC time>/` with one file per format (report.json always).
    /// - Returns: The folder's path.
    /// - Throws: File-system errors from creating the folder or writing the files.
    public static func write(_ report: RunReport, under root: String, formats: [ReportFormat] = ReportFormat.allCases) throws -> String {
        let stamp = report.startedAt.filter { $0.isNumber || $0 == "T" || $0 == "Z" }
        let safeName = String(report.plan.name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" })
        var folder = "\(root)/\(safeName)-\(stamp)"
        var suffix = 2
        while FileManager.default.fileExists(atPath: folder) {
            folder = "\(root)/\(safeName)-\(stamp)-\(suffix)"
            suffix += 1
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for format in [ReportFormat.json] + formats.filter({ $0 != .json }) {
            // Whole or not at all: a merge waiting for generators never reads half a report.
            try format.render(report).write(to: URL(fileURLWithPath: "\(folder)/\(format.fileName)"), options: .atomic)
        }
        return folder
    }
}
