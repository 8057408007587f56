import FeatureServiceClient
import Foundation

/// Keeps every command from writing over what it reads or keeps: an output (`run --out csv=…`, `compare -o`,
/// `report -o`, `report merge -o`, `apply --rejects` and `--report`) may not be an input (the scenario file, the data
/// file, the dataset file, a report it reads, the edits, the journal), and two outputs may not be one file. Files are
/// compared by identity (device and inode) when both exist, so a symbolic or hard link, `./`, `..`, a linked folder
/// or another spelling of the same file is caught; a file not made yet is compared by its resolved path. Standard
/// output and other descriptors are no file of the command's and pass.
///
/// Each command checks before any work starts, and refuses with ``TargetError`` (exit 2, as for any input or output
/// the command cannot use).
enum OutputPaths {
    /// - Parameters:
    ///   - outputs: Each output, with the option that names it (for the message).
    ///   - kept: What the command reads or keeps (`the input`, `the journal`, `the data file`) and its path.
    ///   - command: The command, for the message (`run`, `compare`).
    /// - Throws: ``TargetError`` naming the option, the path and the file it would overwrite.
    static func check(_ outputs: [OutputFile], against kept: [(what: String, path: String)], command: String) throws {
        for output in outputs where !output.isDescriptor {
            guard let clash = kept.first(where: { sameFile(output.path, $0.path) }) else { continue }
            throw TargetError(
                "\(output.naming) is \(clash.what) (\(clash.path)): \(command) never writes over what it reads or keeps. Fix: give \(fixOption(output)) another path"
            )
        }
        for (index, output) in outputs.enumerated() {
            guard let other = outputs[..<index].first(where: { sameOutput($0, output) }) else { continue }
            let same = output.isStandardOutput ? "both standard output" : "the same file"
            throw TargetError(
                "\(other.naming) and \(output.naming) are \(same): each output needs a file of its own. Fix: give \(fixOption(output)) another path")
        }
    }

    /// Whether `first` and `second` name the same file.
    static func sameFile(_ first: String, _ second: String) -> Bool {
        if let one = identity(first), let other = identity(second) { return one == other }
        return resolved(first) == resolved(second)
    }

    /// Whether two outputs write to one place: the same descriptor, or the same file.
    private static func sameOutput(_ first: OutputFile, _ second: OutputFile) -> Bool {
        if case .descriptor(let one) = first.destination, case .descriptor(let other) = second.destination { return one == other }
        if first.isDescriptor || second.isDescriptor { return false }
        return sameFile(first.path, second.path)
    }

    /// How the fix names the option: `--rejects`, `--out csv=…`.
    private static func fixOption(_ output: OutputFile) -> String {
        output.option.hasSuffix("=") ? output.option + "…" : output.option
    }

    /// The device and inode of the file at `path` (links followed), or nil when there is none.
    private static func identity(_ path: String) -> [UInt64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    /// `path` absolute, with its directory's links, `.` and `..` resolved (the file itself need not exist).
    private static func resolved(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let directory = url.deletingLastPathComponent().path
        guard let real = realpath(directory, nil) else { return url.path }
        defer { free(real) }
        return URL(fileURLWithPath: String(cString: real)).appendingPathComponent(url.lastPathComponent).path
    }
}
