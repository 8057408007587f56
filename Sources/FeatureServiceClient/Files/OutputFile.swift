#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file an output option names (`run --out csv=FILE`, `compare -o`, `apply --rejects`, a report in its folder),
/// and the one way featureload writes there: into what the path names, never over it.
///
/// What the path names when the write begins decides how it is written (``destination``):
/// - `-`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or `/proc/self/fd/N`: that open descriptor, written where it
///   stands (not truncated, not closed), so `--out csv=- | tool` gets the lines and `> file` keeps what came first.
/// - A file that exists and is not a regular file (a character device such as `/dev/null`, a FIFO): opened for
///   writing, truncated, and written. It is never replaced, so `/dev/null` stays a device and a FIFO's reader gets
///   the data.
/// - A symbolic link: followed, and the rules apply to what it leads to; the link stays a link.
/// - A regular file, or nothing yet: written whole to a temporary file in the same directory as the file (the link's
///   target's directory, through a link), then renamed over it, so a reader never sees half a file and a failed
///   write leaves the old one as it was.
///
/// Outputs written as a run goes (request samples) are a ``Stream``: the path itself is opened (created or truncated)
/// and written into, whatever it names.
///
/// Blocking, and for one caller at a time: outputs are local files, written by the command that names them.
///
/// ```swift
/// try OutputFile("out/compare.md", option: "-o").write(Array(markdown.utf8))
/// ```
package struct OutputFile: Sendable, Hashable {
    /// The path as the option gave it.
    package let path: String
    /// The option that names the file, for messages: `-o`, `--rejects`, or `--out csv=` (which the path follows
    /// without a space).
    package let option: String

    package init(_ path: String, option: String) {
        self.path = path
        self.option = option
    }

    /// How a write reaches the file.
    package enum Destination: Sendable, Hashable {
        /// An open descriptor of this process: 1 for `-` and `/dev/stdout`.
        case descriptor(Int32)
        /// A file that is not a regular one (a device, a FIFO), or one under `/proc`: opened, truncated and
        /// written where it is.
        case inPlace(String)
        /// A regular file or nothing yet, at this path (links followed): written whole beside it, then renamed.
        case replaced(String)
    }

    /// Where a write of the file goes now (the file system is looked at on each call).
    package var destination: Destination {
        if let descriptor = Self.descriptor(named: path) { return .descriptor(descriptor) }
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG { return .inPlace(path) }
        let target = Self.followingLinks(path)
        // A link to /dev/stdout leads to this process's descriptor, not to a file that could be renamed over.
        if let descriptor = Self.descriptor(named: target) { return .descriptor(descriptor) }
        if target.hasPrefix("/proc/") { return .inPlace(path) }
        return .replaced(target)
    }

    /// Whether writes go to this process's standard output (`-`, `/dev/stdout`).
    package var isStandardOutput: Bool { destination == .descriptor(STDOUT_FILENO) }

    /// Whether writes go to a descriptor of this process (standard output or error, `/dev/fd/N`), not to a file.
    package var isDescriptor: Bool {
        if case .descriptor = destination { return true }
        return false
    }

    /// `--rejects out.json`, `--out csv=out.csv`: the option and the path, as messages name them.
    package var naming: String { option.hasSuffix("=") ? option + path : "\(option) \(path)" }

    /// Writes `bytes` as the file's whole content, by the rules of ``destination``.
    /// - Throws: ``Failure`` naming the option, the path, why, and the fix.
    package func write(_ bytes: some Collection<UInt8>) throws(Failure) {
        try Self.withBytes(bytes) { (buffer) throws(Failure) in
            switch destination {
            case .descriptor(let descriptor):
                fflush(nil)
                if let code = Self.writeAll(descriptor, buffer) { throw failure(code, "write it") }
            case .inPlace(let target):
                let descriptor = open(target, O_WRONLY | O_TRUNC | O_CLOEXEC)
                guard descriptor >= 0 else { throw failure(errno, "open it for writing") }
                let code = Self.writeAll(descriptor, buffer)
                let closed = close(descriptor) == 0 ? nil : errno
                if let code = code ?? closed { throw failure(code, "write it") }
            case .replaced(let target):
                try replace(target, with: buffer)
            }
        }
    }

    /// Appends `bytes` to the file, creating it when there is none (a link is followed; nothing is replaced).
    /// - Throws: ``Failure`` naming the option, the path, why, and the fix.
    package func append(_ bytes: some Collection<UInt8>) throws(Failure) {
        try Self.withBytes(bytes) { (buffer) throws(Failure) in
            if case .descriptor(let descriptor) = destination {
                fflush(nil)
                if let code = Self.writeAll(descriptor, buffer) { throw failure(code, "write it") }
                return
            }
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o666)
            guard descriptor >= 0 else { throw failure(errno, "open it for writing") }
            let code = Self.writeAll(descriptor, buffer)
            let closed = close(descriptor) == 0 ? nil : errno
            if let code = code ?? closed { throw failure(code, "write it") }
        }
    }

    /// Removes a stale output: only a regular file at the path itself goes; a link, a device or a FIFO stays.
    package func removeStale() {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
        unlink(path)
    }

    /// Writes `buffer` to a new file beside `target`, with the mode of the file it replaces (a new one gets the
    /// umask's), and renames it to `target`; on any failure the temporary file goes and `target` is as it was.
    private func replace(_ target: String, with buffer: UnsafeRawBufferPointer) throws(Failure) {
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[...$0]) } ?? ""
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        var info = stat()
        let mode = stat(target, &info) == 0 ? info.st_mode & 0o7777 : nil
        var temporary = ""
        var descriptor: Int32 = -1
        for _ in 0..<16 {
            temporary = "\(directory).\(name.prefix(64)).\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if descriptor >= 0 || errno != EEXIST { break }
        }
        guard descriptor >= 0 else { throw failure(errno, "create it") }
        if let mode { _ = fchmod(descriptor, mode) }
        let code = Self.writeAll(descriptor, buffer)
        let closed = close(descriptor) == 0 ? nil : errno
        if let code = code ?? closed {
            unlink(temporary)
            throw failure(code, "write it")
        }
        guard rename(temporary, target) == 0 else {
            let code = errno
            unlink(temporary)
            throw failure(code, "replace it")
        }
    }

    /// Writes all of `buffer` to `descriptor`, through short writes and interruptions.
    /// - Returns: nil when all was written; else the `errno` of the write that failed.
    static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32? {
        var written = 0
        while written < buffer.count {
            let count = systemWrite(descriptor, buffer.baseAddress! + written, min(buffer.count - written, 1 << 20))
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            written += count
        }
        return nil
    }

    /// Calls `body` with `bytes` laid out contiguously (in place when they already are).
    static func withBytes<Bytes: Collection<UInt8>, Result>(
        _ bytes: Bytes, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var outcome: Swift.Result<Result, Failure>?
        _ = bytes.withContiguousStorageIfAvailable { buffer in
            outcome = Swift.Result { () throws(Failure) in try body(UnsafeRawBufferPointer(buffer)) }
        }
        if outcome == nil {
            let copy = Array(bytes)
            outcome = copy.withUnsafeBytes { buffer in Swift.Result { () throws(Failure) in try body(buffer) } }
        }
        return try outcome!.get()
    }

    /// The descriptor a path names: `-`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`; else nil.
    static func descriptor(named path: String) -> Int32? {
        switch path {
        case "-", "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                let number = path.dropFirst(prefix.count)
                guard !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber) else { return nil }
                return Int32(number)
            }
            return nil
        }
    }

    /// `path` with every symbolic link at its end followed (a link to a link, a link whose target is missing),
    /// relative targets taken from the link's directory; the directories on the way are left as they are.
    static func followingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = buffer.withUnsafeMutableBytes { readlink(current, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count - 1) }
            guard count > 0 else { return current }
            let target = String(decoding: buffer[..<count], as: UTF8.self)
            if target.hasPrefix("/") {
                current = target
            } else {
                current = (current.lastIndex(of: "/").map { String(current[...$0]) } ?? "") + target
            }
        }
        return current
    }
}

/// `write(2)`, named apart from ``OutputFile/write(_:)`` (and ``LocalFile/write(_:to:)``, which writes through
/// ``OutputFile/writeAll(_:_:)``).
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, buffer, count)
    #else
    Darwin.write(descriptor, buffer, count)
    #endif
}
