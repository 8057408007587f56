import FeatureServiceClient
import Foundation

/// Writes a run's report files (``ReportFormat``) into a new folder.
///
/// `run --out DIR` names a directory, made when missing (a link to one is followed): each run's reports go into a
/// folder of their own made in it, and every file there is new, written whole (``OutputFile``: beside, then renamed),
/// so nothing already in DIR is written over. A report folder cannot be a stream: `-`, a device or a FIFO as DIR is
/// refused before the run, pointing at `csv=-`/`json=-` for request samples on standard output.
package enum ReportWriter {
    /// Checks before a run that report folders can be made under `root` (creating it), so a long run never ends
    /// without a place for its report.
    /// - Throws: ``LoadRunnerError`` naming the folder and the fix.
    package static func checkWritable(_ root: String) throws {
        var isDirectory: ObjCBool = false
        if OutputFile(root, option: "--out").isDescriptor
            || (FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) && !isDirectory.boolValue)
        {
            throw LoadRunnerError(
                "--out \(root): not a directory; reports are files written into a new folder under the directory --out names. Fix: give a directory (made if missing), and csv=FILE or json=FILE (- for standard output) to stream the requests"
            )
        }
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
    package static func write(_ report: RunReport, under root: String, formats: [ReportFormat] = ReportFormat.allCases) throws -> String {
        let stamp = String(report.startedAt.filter { $0.isNumber || $0 == "T" || $0 == "Z" }.prefix(32))
        let safeName = folderName(for: report.plan.name)
        var folder = "\(root)/\(safeName)-\(stamp)"
        var suffix = 2
        while FileManager.default.fileExists(atPath: folder) {
            folder = "\(root)/\(safeName)-\(stamp)-\(suffix)"
            suffix += 1
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Computed once for every format that shows them, not once each.
        let views = formats.contains { $0 != .json } ? report.views : nil
        for format in [ReportFormat.json] + formats.filter({ $0 != .json }) {
            // Whole or not at all: a merge waiting for generators never reads half a report.
            try OutputFile("\(folder)/\(format.fileName)", option: "--out").write(format.render(report, views: views))
        }
        return folder
    }

    /// The longest run name a folder name takes, in UTF-8 bytes: with the time stamp and a suffix it stays well
    /// under the 255 bytes file systems allow in a name.
    static let longestFolderName = 120

    /// The name's part of a report folder's name: letters, digits, `-` and `_` kept, anything else `-`; a name
    /// longer than ``longestFolderName`` bytes is cut there and ends with a hash of the whole name, so two long
    /// names that start alike still get different folders. The report itself keeps the whole name.
    static func folderName(for name: String) -> String {
        let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" })
        guard safe.utf8.count > longestFolderName else { return safe }
        // FNV-1a over the whole name: stable across runs and platforms, unlike `hashValue`.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let tag = "-" + String(hash, radix: 16)
        var kept = ""
        var bytes = 0
        for character in safe {
            let size = character.utf8.count
            if bytes + size > longestFolderName - tag.utf8.count { break }
            kept.append(character)
            bytes += size
        }
        return kept + tag
    }
}
