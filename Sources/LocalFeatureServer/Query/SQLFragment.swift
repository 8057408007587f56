import SQLiteSupport

/// A value bound to a `?` placeholder in generated SQL.
enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

extension SQLValue: DirectBindable {
    /// Binds the value by its kind (``GRDB/Statement/execute(binding:)-([Value])``: a batched insert's row).
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .null: Int64?.none.bind(to: statement, at: index)
        case .integer(let number): number.bind(to: statement, at: index)
        case .real(let number): number.bind(to: statement, at: index)
        case .text(let text): text.bind(to: statement, at: index)
        }
    }
}

/// A piece of SQL with its `?` placeholders and the values bound to them, in order.
///
/// Generated SQL only ever contains quoted column names from the layer schema, keywords and placeholders;
/// client text reaches SQLite as bound values only.
struct SQLFragment: Sendable, Hashable {
    var sql: String
    var bindings: [SQLValue]

    init(_ sql: String, _ bindings: [SQLValue] = []) {
        self.sql = sql
        self.bindings = bindings
    }

    /// `"name"`, with embedded double quotes doubled.
    static func quoted(_ identifier: String) -> String {
        var out = "\""
        for character in identifier {
            if character == "\"" { out += "\"\"" } else { out.append(character) }
        }
        return out + "\""
    }
}
