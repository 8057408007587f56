import GRDB
import GRDBSQLite

extension Statement {
    /// Runs this prepared statement once with `values` bound by position through the SQLite C API.
    ///
    /// The per-row path of a batched applyEdits: GRDB's `execute(arguments:)` validates the arguments and nests a
    /// closure per bound value, which cost as much as SQLite's own insert. This keeps GRDB's bookkeeping (it marks
    /// the statement's arguments as set to none, then runs it through `execute()`, so transaction observers and error
    /// reporting stay GRDB's) and only does the binding directly.
    /// - Throws: `DatabaseError` from SQLite, e.g. `SQLITE_CONSTRAINT` for a duplicate GlobalID, or `SQLITE_MISUSE`
    ///   when `values.count` is not the statement's number of `?` placeholders.
    func execute(binding values: [SQLValue]) throws {
        guard Int(sqlite3_bind_parameter_count(sqliteStatement)) == values.count else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "expected \(sqlite3_bind_parameter_count(sqliteStatement)) values, got \(values.count)", sql: sql)
        }
        setUncheckedArguments(StatementArguments())  // resets, clears bindings, marks arguments as set
        let handle = sqliteStatement
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            case .text(let text):
                var text = text
                code = text.withUTF8 { bytes in
                    sqlite3_bind_text(handle, index, bytes.baseAddress, Int32(bytes.count), sqliteTransient)
                }
            }
            guard code == SQLITE_OK else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "could not bind value \(index)", sql: sql)
            }
        }
        try execute()
    }
}

/// SQLite's `SQLITE_TRANSIENT` destructor (a cast macro Swift cannot import): SQLite copies the bytes.
private let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
