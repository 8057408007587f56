import Foundation
import GRDB
import GRDBSQLite
import NIOCore

/// Where the bytes of a BLOB being written come from.
enum BlobSource: Sendable, Hashable {
    /// Bytes in memory (small file parts, base64 `data` of applyEdits attachments).
    case bytes([UInt8])
    /// A temporary file of a streamed file part.
    case file(path: String)
    /// The BLOB column `column` of row `rowid` of `table` (an upload item or part), copied in chunks.
    case blob(table: String, column: String, rowid: Int64)
}

/// Chunked reads and writes of BLOB columns through SQLite's incremental BLOB I/O (`sqlite3_blob_*`), so a large
/// attachment moves between a file, the database and the network a chunk at a time.
///
/// Writes run inside the caller's write transaction (they roll back with it); the row must have been made with
/// `zeroblob(size)` first. Isolation: the caller's `Database` (its connection's queue).
enum BlobIO {
    /// Bytes moved per step.
    static let chunkSize = 256 * 1024

    /// Writes the `size` bytes of `source` into the BLOB `column` of row `rowid` in `table` (already long enough,
    /// e.g. made with `zeroblob`), starting at byte `start`.
    /// - Throws: `DatabaseError` for SQLite failures and a source of another size; Foundation's errors for the file.
    static func write(_ source: BlobSource, size: Int, db: Database, table: String, column: String, rowid: Int64, at start: Int = 0) throws {
        try withSmallCache(db) { try copy(source, size: size, db: db, table: table, column: column, rowid: rowid, at: start) }
    }

    private static func copy(_ source: BlobSource, size: Int, db: Database, table: String, column: String, rowid: Int64, at start: Int) throws {
        let target = try Handle(db: db, table: table, column: column, rowid: rowid, writable: true)
        defer { target.close() }
        guard start + size <= target.size else { throw mismatch("target holds \(target.size) bytes, cannot write \(size) at \(start)") }
        switch source {
        case .bytes(let bytes):
            guard bytes.count == size else { throw mismatch("\(bytes.count) bytes given, expected \(size)") }
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + chunkSize, bytes.count)
                try bytes[offset..<end].withUnsafeBytes { try target.write($0, at: start + offset) }
                offset = end
            }
        case .file(let path):
            guard let file = FileHandle(forReadingAtPath: path) else { throw mismatch("the temporary file is missing") }
            defer { try? file.close() }
            var offset = 0
            while let chunk = try file.read(upToCount: chunkSize), !chunk.isEmpty {
                guard offset + chunk.count <= size else { throw mismatch("the file is longer than \(size) bytes") }
                try chunk.withUnsafeBytes { try target.write($0, at: start + offset) }
                offset += chunk.count
            }
            guard offset == size else { throw mismatch("the file holds \(offset) bytes, expected \(size)") }
        case .blob(let sourceTable, let sourceColumn, let sourceRow):
            let origin = try Handle(db: db, table: sourceTable, column: sourceColumn, rowid: sourceRow, writable: false)
            defer { origin.close() }
            guard origin.size == size else { throw mismatch("the source holds \(origin.size) bytes, expected \(size)") }
            var buffer = [UInt8](repeating: 0, count: min(chunkSize, max(size, 1)))
            var offset = 0
            while offset < size {
                let count = min(buffer.count, size - offset)
                try buffer.withUnsafeMutableBytes { try origin.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<count]), at: offset) }
                try buffer.withUnsafeBytes { try target.write(UnsafeRawBufferPointer(rebasing: $0[0..<count]), at: start + offset) }
                offset += count
            }
        }
    }

    /// Up to `count` bytes of the BLOB `column` of row `rowid` in `table`, from `offset`.
    /// - Throws: `DatabaseError` (e.g. `SQLITE_ERROR` when the row is gone).
    static func read(db: Database, table: String, column: String, rowid: Int64, offset: Int, count: Int) throws -> ByteBuffer {
        try withSmallCache(db) { try readRange(db: db, table: table, column: column, rowid: rowid, offset: offset, count: count) }
    }

    /// Runs `body` with the connection's page cache held to SQLite's default size (2 MiB), then gives it back its own.
    ///
    /// A blob's pages pass through the page cache like any other, and the store's cache is large for its indexes
    /// (``FeatureStore/cacheKibibytes``): without this a 50 MB attachment would fill it and cost the process that
    /// much memory while it moves.
    static func withSmallCache<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        let own = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        guard own < -2000 || own > 500 else { return try body() }
        try db.execute(sql: "PRAGMA cache_size = -2000")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(own)") }
        return try body()
    }

    private static func readRange(db: Database, table: String, column: String, rowid: Int64, offset: Int, count: Int) throws -> ByteBuffer {
        let origin = try Handle(db: db, table: table, column: column, rowid: rowid, writable: false)
        defer { origin.close() }
        let length = max(0, min(count, origin.size - offset))
        var buffer = ByteBuffer()
        guard length > 0 else { return buffer }
        try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { pointer in
            try origin.read(into: UnsafeMutableRawBufferPointer(rebasing: pointer[0..<length]), at: offset)
            return length
        }
        return buffer
    }

    private static func mismatch(_ message: String) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_MISMATCH, message: "BLOB write: \(message)")
    }

    /// One open `sqlite3_blob`; closed by its owner before the statement that needs the row runs.
    private struct Handle {
        let blob: OpaquePointer
        let size: Int
        let db: Database

        init(db: Database, table: String, column: String, rowid: Int64, writable: Bool) throws {
            var blob: OpaquePointer?
            let code = sqlite3_blob_open(db.sqliteConnection, "main", table, column, rowid, writable ? 1 : 0, &blob)
            guard code == SQLITE_OK, let blob else {
                if let blob { sqlite3_blob_close(blob) }
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "cannot open BLOB \(table).\(column) of row \(rowid)")
            }
            self.blob = blob
            self.size = Int(sqlite3_blob_bytes(blob))
            self.db = db
        }

        func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
            guard bytes.count > 0 else { return }
            let code = sqlite3_blob_write(blob, bytes.baseAddress, Int32(bytes.count), Int32(offset))
            guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "BLOB write failed") }
        }

        func read(into bytes: UnsafeMutableRawBufferPointer, at offset: Int) throws {
            guard bytes.count > 0 else { return }
            let code = sqlite3_blob_read(blob, bytes.baseAddress, Int32(bytes.count), Int32(offset))
            guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "BLOB read failed") }
        }

        func close() { sqlite3_blob_close(blob) }
    }
}

extension FilePart {
    /// Where a blob write reads this part's bytes from.
    var blobSource: BlobSource {
        switch storage {
        case .memory(let bytes): .bytes(bytes)
        case .file(let path): .file(path: path)
        }
    }
}
