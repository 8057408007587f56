/// A value bound to a `?` placeholder in generated SQL.
enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
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
