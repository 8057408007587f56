#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file-system calls attachments need: a file's size, and writing a download. Blocking; files are local.
enum LocalFile {
    /// The size in bytes of the regular file at `path`.
    /// - Throws: ``BodyReader/Failure`` when there is no readable regular file there.
    static func size(of path: String) throws(BodyReader.Failure) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw BodyReader.Failure(description: "cannot read \(path) (errno \(errno))") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw BodyReader.Failure(description: "\(path) is not a regular file") }
        guard access(path, R_OK) == 0 else { throw BodyReader.Failure(description: "\(path) is not readable") }
        return Int64(info.st_size)
    }

    /// Writes `bytes` to `path` (created or truncated, mode 0644): first to `path.partial`, then renamed, so a failed
    /// write never leaves a truncated file under the final name.
    /// - Throws: ``BodyReader/Failure`` naming the path and errno.
    static func write(_ bytes: [UInt8], to path: String) throws(BodyReader.Failure) {
        let partial = path + ".partial"
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BodyReader.Failure(description: "cannot create \(partial) (errno \(errno))") }
        var failure = bytes.withUnsafeBytes { OutputFile.writeAll(descriptor, $0) } ?? 0
        if failure == 0 && fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        guard failure == 0, rename(partial, path) == 0 else {
            let code = failure == 0 ? errno : failure
            unlink(partial)
            throw BodyReader.Failure(description: "cannot write \(path) (errno \(code))")
        }
    }
}

extension LocalFile {
    /// Flushes the finished file at `partial` to disk and renames it to `path`.
    /// - Throws: ``BodyReader/Failure`` naming the path and errno.
    static func commit(_ partial: String, to path: String) throws(BodyReader.Failure) {
        let descriptor = open(partial, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            _ = fsync(descriptor)
            close(descriptor)
        }
        guard rename(partial, path) == 0 else {
            let code = errno
            unlink(partial)
            throw BodyReader.Failure(description: "cannot write \(path) (errno \(code))")
        }
    }

    /// Deletes the file at `path` if there is one.
    static func remove(_ path: String) {
        unlink(path)
    }
}
