/// A parsed `where` clause: the SQL-92 predicate dialect of ArcGIS standardized queries, as a tree.
///
/// Field names are kept as written; ``WhereCompiler`` resolves them against the layer's fields
/// (case-insensitively) and turns the tree into parameterised SQL. The tree never carries SQL text.
///
/// Extension points for later dialect work: `BETWEEN` is a new case here, `date '…'`/`timestamp '…'` are new
/// ``WhereLiteral`` cases, and the documented functions (`UPPER`, `CURRENT_DATE`, …) are a new
/// ``WhereOperand`` case; the lexer already knows `BETWEEN` as a keyword so it cannot be mistaken for a field.
indirect enum WhereExpression: Sendable, Hashable {
    /// `left AND right`.
    case and(WhereExpression, WhereExpression)
    /// `left OR right`.
    case or(WhereExpression, WhereExpression)
    /// `NOT expression`.
    case not(WhereExpression)
    /// `left <op> right`, e.g. `category = 1`, `1 = 1`.
    case comparison(WhereOperand, ComparisonOperator, WhereOperand)
    /// `operand IS [NOT] NULL`.
    case isNull(WhereOperand, negated: Bool)
    /// `operand [NOT] IN (a, b, …)`.
    case inList(WhereOperand, [WhereOperand], negated: Bool)
    /// `operand [NOT] LIKE pattern [ESCAPE 'c']`.
    case like(WhereOperand, pattern: WhereOperand, escape: String?, negated: Bool)
}

/// One side of a predicate: a field reference or a literal.
enum WhereOperand: Sendable, Hashable {
    /// A field name as written in the clause.
    case field(String)
    /// A constant.
    case literal(WhereLiteral)
}

/// A constant in a `where` clause.
enum WhereLiteral: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case string(String)
}

/// The comparison operators of the dialect.
enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "="
    case notEqual = "<>"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}

/// Why a `where` clause was rejected: a reason for the log, and the character offset where parsing stopped.
///
/// Clients only ever see ArcGIS' fixed text (`'where' parameter is invalid`); this detail is for the server log and tests.
struct WhereClauseError: Error, Sendable, Hashable, CustomStringConvertible {
    var reason: String
    var offset: Int

    var description: String { "where clause invalid at offset \(offset): \(reason)" }
}
