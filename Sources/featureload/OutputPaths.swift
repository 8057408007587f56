import Foundation

/// Keeps `apply` from writing over what it reads or keeps: an output (`--rejects`, its reasons file, `--report`) may
/// not be the input, the journal or the embedded service's data file. Files are compared by identity (device and
/// inode) when both exist, so a symbolic or hard link, `./`, `..` or another spelling of the same file is caught; a
/// file not made yet is compared by its resolved path.
enum OutputPaths {
    /// - Parameters:
    ///   - outputs: Each output's option (for the message) and path.
    ///   - kept: What the run reads or keeps (`the input`, `the journal`, `the data file`) and its path.
    /// - Throws: ``TargetError`` naming the option and the file it would overwrite.
    static func check(_ outputs: [(option: String, path: String)], against kept: [(what: String, path: String)]) throws {
        for output in outputs {
            guard let clash = kept.first(where: { sameFile(output.path, $0.path) }) else { continue }
            throw TargetError(
                "\(output.option) \(output.path) is \(clash.what) (\(clash.path)): apply never writes over what it reads or keeps. Fix: give \(output.option) another path"
            )
        }
    }

    /// Whether `first` and `second` name the same file.
    static func sameFile(_ first: String, _ second: String) -> Bool {
        if let one = identity(first), let other = identity(second) { return one == other }
        return resolved(first) == resolved(second)
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
