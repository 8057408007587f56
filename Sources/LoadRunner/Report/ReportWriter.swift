import Foundation

/// Writes report.json and report.md into a new folder.
public enum ReportWriter {
    /// Creates `<root>/<plan>-<UTC time>/` with both files.
    /// - Returns: The folder's path.
    /// - Throws: File-system errors from creating the folder or writing the files.
    public static func write(_ report: RunReport, under root: String) throws -> String {
        let stamp = report.startedAt.filter { $0.isNumber || $0 == "T" || $0 == "Z" }
        let safeName = String(report.plan.name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" })
        var folder = "\(root)/\(safeName)-\(stamp)"
        var suffix = 2
        while FileManager.default.fileExists(atPath: folder) {
            folder = "\(root)/\(safeName)-\(stamp)-\(suffix)"
            suffix += 1
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(report).write(to: URL(fileURLWithPath: "\(folder)/report.json"))
        try Data(ReportRenderer.markdown(report).utf8).write(to: URL(fileURLWithPath: "\(folder)/report.md"))
        return folder
    }
}
