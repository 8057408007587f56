#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension OutputFile {
    /// An output written as the run goes (`run --out csv=FILE`): the path opened for writing (created or truncated,
    /// links followed) and written into, whatever it names, so a FIFO's reader gets the lines as they come and
    /// `/dev/null` stays a device; `-` and `/dev/stdout` write standard output.
    ///
    /// One owner writes to it; it is not shared between tasks. ``close()`` closes what ``OutputFile/openStream(standardOutput:)``
    /// opened; a descriptor it was given stays open.
    package final class Stream {
        /// The file, for messages.
        package let file: OutputFile
        private let descriptor: Int32
        private let owned: Bool
        private var closed = false

        init(file: OutputFile, descriptor: Int32, owned: Bool) {
            self.file = file
            self.descriptor = descriptor
            self.owned = owned
        }

        deinit {
            if owned && !closed { _ = closeDescriptor(descriptor) }
        }

        /// Writes `bytes` after what was written before.
        /// - Throws: ``OutputFile/Failure`` naming the option, the path and why.
        package func write(_ bytes: some Collection<UInt8>) throws(Failure) {
            let descriptor = self.descriptor
            let file = self.file
            try OutputFile.withBytes(bytes) { (buffer) throws(Failure) in
                if let code = OutputFile.writeAll(descriptor, buffer) { throw file.failure(code, "write it") }
            }
        }

        /// Closes the file (a descriptor it was given stays open); a second call does nothing.
        /// - Throws: ``OutputFile/Failure`` when closing reports a write that failed (a full disk over NFS).
        package func close() throws(Failure) {
            guard !closed else { return }
            closed = true
            guard owned else { return }
            if closeDescriptor(descriptor) != 0 { throw file.failure(errno, "write it") }
        }
    }

    /// Opens the file to be written as the run goes (see ``Stream``).
    /// - Parameter standardOutput: The descriptor `-` and `/dev/stdout` write to: 1, unless the command moved its own
    ///   lines off standard output and kept the original elsewhere.
    /// - Throws: ``Failure`` naming the option, the path, why, and the fix.
    package func openStream(standardOutput: Int32 = STDOUT_FILENO) throws(Failure) -> Stream {
        if case .descriptor(let descriptor) = destination {
            return Stream(file: self, descriptor: descriptor == STDOUT_FILENO ? standardOutput : descriptor, owned: false)
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw failure(errno, "open it for writing") }
        return Stream(file: self, descriptor: descriptor, owned: true)
    }

    /// Why an output could not be written, naming the option and the path, with the fix.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What was named: `--rejects out.json`.
        package let naming: String
        /// What failed and the system's reason: `cannot create it (no such file or directory)`.
        package let reason: String
        /// What to do about it.
        package let fix: String

        package var description: String { "\(naming): \(reason). Fix: \(fix)" }
    }

    /// The failure of `action` (`create it`, `write it`) with the system's `code`.
    func failure(_ code: Int32, _ action: String) -> Failure {
        let fix: String
        switch code {
        case ENOENT: fix = "give a path in a folder that exists (or make the folder first)"
        case EACCES, EPERM, EROFS: fix = "give a path you may write to"
        case EISDIR: fix = "it is a folder; give the path of a file"
        case ENOSPC, EDQUOT: fix = "free space on that disk, or give a path on another"
        case EBADF: fix = "give a descriptor this process has open for writing, or a file's path"
        case ENXIO: fix = "give a file, a device or a FIFO (a socket cannot be opened)"
        default: fix = "give another path"
        }
        return Failure(naming: naming, reason: "cannot \(action) (\(String(cString: strerror(code)).lowercased()))", fix: fix)
    }
}

/// `close(2)`, named apart from ``OutputFile/Stream/close()``.
private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(descriptor)
    #else
    Darwin.close(descriptor)
    #endif
}
