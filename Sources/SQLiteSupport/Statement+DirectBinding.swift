package import GRDB
import GRDBSQLite

/// A value bound straight through SQLite's C API (``GRDB/Statement/execute(binding:)``): the store's batched inserts
/// and the journal's rows, where GRDB's `execute(arguments:)` (an existential and a closure per value, and the
/// arguments checked) cost as much as SQLite's own insert.
package protocol DirectBindable {
    /// Binds the value to parameter `index` (1-based) of `statement`; returns SQLite's result code.
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32
}

extension Int: DirectBindable {
    package func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_int64(statement, index, Int64(self)) }
}

extension Int64: DirectBindable {
    package func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_int64(statement, index, self) }
}

extension Double: DirectBindable {
    package func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_double(statement, index, self) }
}

extension String: DirectBindable {
    package func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        var text = self
        return text.withUTF8 { bytes in
            guard bytes.count <= Int32.max else { return SQLITE_TOOBIG }
            return sqlite3_bind_text(statement, index, bytes.baseAddress, Int32(bytes.count), sqliteTransient)
        }
    }
}

extension [UInt8]: DirectBindable {
    package func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        withUnsafeBytes { bytes in
            guard bytes.count <= Int32.max else { return SQLITE_TOOBIG }
            return sqlite3_bind_blob(statement, index, bytes.baseAddress, Int32(bytes.count), sqliteTransient)
        }
    }
}

extension Optional: DirectBindable where Wrapped: DirectBindable {
    package func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .some(let value): value.bind(to: statement, at: index)
        case .none: sqlite3_bind_null(statement, index)
        }
    }
}

/// SQLite's `SQLITE_TRANSIENT` destructor (a cast macro Swift cannot import): SQLite copies the bytes before the bind
/// returns.
private let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

extension Statement {
    /// Runs this prepared statement once with `values` bound by position, typed, through SQLite's C API.
    ///
    /// GRDB's bookkeeping stays: the statement's arguments are reset to none and it runs through `execute()`, so
    /// transaction observers and errors are GRDB's (`DatabaseError`, without the bound values GRDB would list).
    /// - Throws: `DatabaseError`, e.g. `SQLITE_CONSTRAINT` for a duplicate key, or `SQLITE_MISUSE` when the number of
    ///   values is not the statement's number of `?` placeholders.
    package func execute<each Value: DirectBindable>(binding value: repeat each Value) throws {
        clearBindings()
        try executeBound(bind(after: 0, repeat each value))
    }

    /// Runs this prepared statement once with `values` bound by position (a row whose length is known only at run
    /// time), as ``execute(binding:)-(repeat each Value)`` does.
    package func execute<Value: DirectBindable>(binding values: [Value]) throws {
        guard Int(sqlite3_bind_parameter_count(sqliteStatement)) == values.count else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "expected \(sqlite3_bind_parameter_count(sqliteStatement)) values, got \(values.count)", sql: sql
            )
        }
        clearBindings()
        var index: Int32 = 0
        for value in values {
            index += 1
            try bind(value, at: index)
        }
        try executeBound(index)
    }

    /// Resets the statement and clears its parameters, for values bound by ``bind(after:_:)`` and a run by
    /// ``executeBound(_:)``.
    package func clearBindings() {
        setUncheckedArguments(StatementArguments())  // resets, clears bindings, marks arguments as set
    }

    /// Binds `values` to the parameters after the first `bound` (1-based positions `bound + 1`, …), typed, through
    /// SQLite's C API; returns the number of parameters bound so far. A multi-row statement binds its rows in turn.
    /// - Throws: `DatabaseError` when SQLite refuses a value (e.g. a position past the statement's parameters).
    package func bind<each Value: DirectBindable>(after bound: Int32, _ value: repeat each Value) throws -> Int32 {
        var index = bound
        for value in repeat each value {
            index += 1
            try bind(value, at: index)
        }
        return index
    }

    /// Binds one value to parameter `index` (1-based).
    /// - Throws: `DatabaseError` with SQLite's code when it refuses the value.
    private func bind(_ value: some DirectBindable, at index: Int32) throws {
        let code = value.bind(to: sqliteStatement, at: index)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "could not bind value \(index)", sql: sql)
        }
    }

    /// Runs the statement once with the values bound since ``clearBindings()``, `bound` of them.
    /// - Throws: `DatabaseError`: `SQLITE_MISUSE` when `bound` is not the statement's number of `?` placeholders.
    package func executeBound(_ bound: Int32) throws {
        guard bound == sqlite3_bind_parameter_count(sqliteStatement) else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "expected \(sqlite3_bind_parameter_count(sqliteStatement)) values, got \(bound)", sql: sql)
        }
        try execute()
    }
}
