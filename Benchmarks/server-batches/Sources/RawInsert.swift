import FeatureloadBenchmarkSupport
import Foundation
import GRDBSQLite

/// The physical limit the server is measured against: the same rows inserted straight into SQLite with the C API —
/// same table and indexes (copied from the server's database), WAL, `synchronous=NORMAL`, one prepared statement,
/// one transaction per batch.
enum RawInsert {
    /// `CREATE` statements of `layer_0` and its indexes in the database at `path`, table first. Triggers are left out:
    /// the server's only trigger fires on deletes (attachments of a deleted feature) and needs tables not copied here.
    static func schema(of path: String) throws -> [String] {
        let db = try open(path)
        defer { sqlite3_close_v2(db) }
        return try rows(
            db, "SELECT sql FROM sqlite_master WHERE tbl_name = 'layer_0' AND type IN ('table', 'index') AND sql IS NOT NULL ORDER BY type DESC, name"
        ).map { $0[0] }
    }

    /// Inserts `batchSize`-row transactions into `layer_0` until `rows` rows are in, in the database at `path`
    /// (made with `schema` when `create`; later runs append, so the table grows as the server's did); returns the
    /// elapsed seconds.
    ///
    /// Each row binds what the server stores for one added park: a time-ordered GlobalID, the four attributes the
    /// HTTP run sends, and the point; other columns are NULL, as the server leaves them.
    static func run(path: String, schema: [String], create: Bool, rows total: Int, batchSize: Int, row: (Int) -> [String: RawValue]) throws -> Double
    {
        let db = try open(path)
        defer { sqlite3_close_v2(db) }
        try execute(db, "PRAGMA journal_mode = WAL")
        try execute(db, "PRAGMA synchronous = NORMAL")
        if create { for statement in schema { try execute(db, statement) } }
        let columns = try rows(db, "PRAGMA table_info(layer_0)").filter { $0[5] == "0" }.map { $0[1] }
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let sql = "INSERT INTO layer_0 (\(columns.map { "\"\($0)\"" }.joined(separator: ", "))) VALUES (\(placeholders))"
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK else { throw failure(db, sql) }
        defer { sqlite3_finalize(statement) }
        let lowered = columns.map { $0.lowercased() }
        // The rows are built before the clock starts, in column order, so only SQLite's work is timed: this is the
        // limit the server is compared with.
        let prepared: [[RawValue?]] = (0..<total).map { index in
            let values = row(index)
            return lowered.map { values[$0] }
        }
        let start = DispatchTime.now().uptimeNanoseconds
        var inserted = 0
        while inserted < total {
            try execute(db, "BEGIN IMMEDIATE")
            for _ in 0..<min(batchSize, total - inserted) {
                sqlite3_reset(statement)
                for (index, value) in prepared[inserted].enumerated() {
                    let position = Int32(index + 1)
                    switch value {
                    case .text(var text)?:
                        text.withUTF8 { bytes in
                            _ = sqlite3_bind_text(statement, position, bytes.baseAddress, Int32(bytes.count), transient)
                        }
                    case .integer(let value)?: sqlite3_bind_int64(statement, position, value)
                    case .real(let value)?: sqlite3_bind_double(statement, position, value)
                    case nil: sqlite3_bind_null(statement, position)
                    }
                }
                guard sqlite3_step(statement) == SQLITE_DONE else { throw failure(db, sql) }
                inserted += 1
            }
            try execute(db, "COMMIT")
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Rows in `layer_0` of the database at `path` (another process may be writing it: WAL readers do not block it).
    static func count(path: String) throws -> Int {
        let db = try open(path)
        defer { sqlite3_close_v2(db) }
        guard let text = try rows(db, "SELECT count(*) FROM layer_0").first?.first, let count = Int(text) else {
            throw BenchmarkFailure("cannot count the rows of layer_0 in \(path)")
        }
        return count
    }

    /// A value bound to one column.
    enum RawValue {
        case text(String)
        case integer(Int64)
        case real(Double)
    }

    /// `SQLITE_TRANSIENT`: SQLite copies the bytes (the macro is a cast Swift cannot import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func open(_ path: String) throws -> OpaquePointer? {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            defer { sqlite3_close_v2(db) }
            throw failure(db, "open \(path)")
        }
        return db
    }

    private static func execute(_ db: OpaquePointer?, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw failure(db, sql) }
    }

    private static func rows(_ db: OpaquePointer?, _ sql: String) throws -> [[String]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw failure(db, sql) }
        defer { sqlite3_finalize(statement) }
        var result: [[String]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            result.append(
                (0..<sqlite3_column_count(statement)).map { column in
                    sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
                })
        }
        return result
    }

    private static func failure(_ db: OpaquePointer?, _ what: String) -> BenchmarkFailure {
        BenchmarkFailure("SQLite: \(what): \(db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open")")
    }
}
