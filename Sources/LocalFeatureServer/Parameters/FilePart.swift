import FeatureModel
import Foundation
import NIOCore

/// One file part of a multipart form (a part with a `filename`): its field name, the client's file name and content
/// type, and its bytes — in memory when small, otherwise in a temporary file the server named.
///
/// The client's file name is kept as text only and never used in a path (``AttachmentName`` makes it safe for
/// storage); the temporary file's name is a UUID.
struct FilePart: Sendable, Hashable {
    /// Where the bytes are.
    enum Storage: Sendable, Hashable {
        /// Small parts stay in memory.
        case memory([UInt8])
        /// Larger parts were streamed to this temporary file (removed with its ``MultipartForm``).
        case file(path: String)
    }

    /// The part's `name` (e.g. `attachment`, `file`).
    var fieldName: String
    /// The `filename` the client sent (may be empty, may hold `../`: never a path).
    var filename: String
    /// The part's `Content-Type`, if any.
    var contentType: String?
    var storage: Storage
    /// Bytes in the part.
    var size: Int

    /// The whole part in memory (for small parts and tests).
    /// - Throws: Foundation's file errors when a temporary file cannot be read.
    func bytes() throws -> [UInt8] {
        switch storage {
        case .memory(let bytes): return bytes
        case .file(let path): return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }
}

/// The parsed form of a multipart request: plain fields in memory and file parts (see ``FilePart``).
///
/// Lifetime: file parts may live in ``temporaryDirectory``; ``removeFiles()`` deletes it once the request has been
/// answered (the HTTP shell does this).
struct MultipartForm: Sendable, Hashable {
    var fields: [FormField] = []
    var files: [FilePart] = []
    /// The directory holding this request's spilled file parts, if any were spilled.
    var temporaryDirectory: String?

    /// Deletes the temporary files of this form (idempotent, errors ignored: the directory is the server's own).
    func removeFiles() {
        guard let temporaryDirectory else { return }
        try? FileManager.default.removeItem(atPath: temporaryDirectory)
    }
}
