import Foundation

/// Writes one temporary file in large buffered writes; its name is a UUID chosen here, never a client's.
///
/// Not thread-safe: used by one request's task. Close it (``close()``) before reading the file.
final class TemporaryFileWriter {
    /// The file's path.
    let path: String
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var isClosed = false
    /// Bytes buffered before a write to the file.
    private static let bufferSize = 1 << 20

    /// Creates an empty file in `directory`.
    /// - Throws: `CocoaError` when the file cannot be created.
    init(directory: String) throws {
        path = (directory as NSString).appendingPathComponent("part-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit {
        try? close()
    }

    /// Appends `bytes`.
    /// - Throws: the file system's error.
    func write(_ bytes: some Collection<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Writes what is buffered and closes the file (idempotent).
    /// - Throws: the file system's error.
    func close() throws {
        guard !isClosed else { return }
        isClosed = true
        try flush()
        try handle.close()
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Makes a new private directory `featureload-upload-<UUID>` under `root` (the system's temporary directory when
    /// `root` is empty) and returns its path.
    /// - Throws: `CocoaError` when it cannot be created.
    static func makeDirectory(under root: String) throws -> String {
        let base = root.isEmpty ? FileManager.default.temporaryDirectory.path : root
        let directory = (base as NSString).appendingPathComponent("featureload-upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return directory
    }
}
