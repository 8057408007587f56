/// A parsed `where` clause: the SQL-92 predicate dialect of ArcGIS standardized queries, as a tree.
///
/// Field names are kept as written; ``WhereCompiler`` resolves them against the layer's fields
/// (case-insensitively) and turns the tree into parameterised SQL. The tree never carries SQL text: functions are
/// cases of the closed ``WhereFunction`` whitelist and every constant is a ``WhereLiteral``.
/// The accepted dialect is documented on ``WhereParser``.
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
    /// `operand [NOT] BETWEEN low AND high` (both ends included).
    case between(WhereOperand, low: WhereOperand, high: WhereOperand, negated: Bool)
    /// `operand [NOT] LIKE pattern [ESCAPE 'c']`.
    case like(WhereOperand, pattern: WhereOperand, escape: String?, negated: Bool)
}

/// A value in a `where` clause: a field, a constant, arithmetic, or a whitelisted function.
indirect enum WhereOperand: Sendable, Hashable {
    /// A field name as written in the clause.
    case field(String)
    /// A constant.
    case literal(WhereLiteral)
    /// `left + right`, `left - right`, `left * right`, `left / right`.
    case arithmetic(WhereOperand, ArithmeticOperator, WhereOperand)
    /// `-operand`.
    case negate(WhereOperand)
    /// A call of a function from the whitelist, with its arguments in order.
    case function(WhereFunction, [WhereOperand])
    /// `EXTRACT(part FROM operand)` on a date field or date value.
    case extract(DatePart, WhereOperand)
    /// `TRIM([BOTH|LEADING|TRAILING] [characters] FROM operand)`; `characters` nil trims spaces.
    case trim(TrimSide, characters: WhereOperand?, WhereOperand)
    /// `CAST(operand AS type)`.
    case cast(WhereOperand, CastType)
}

/// A constant in a `where` clause.
enum WhereLiteral: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case string(String)
    /// `date 'yyyy-mm-dd'`, `timestamp 'yyyy-mm-dd HH:MI:SS'`, `CURRENT_DATE` or `CURRENT_TIMESTAMP`, resolved to
    /// epoch milliseconds (UTC), the unit Date fields are stored in.
    case epochMilliseconds(Int64)
    /// `INTERVAL 'n' DAY|HOUR|MINUTE|SECOND`, in milliseconds, to add to or subtract from a date.
    case interval(milliseconds: Int64)
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

/// The arithmetic operators of the dialect.
enum ArithmeticOperator: String, Sendable, Hashable, CaseIterable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
}

/// The parts `EXTRACT` can read from a date.
enum DatePart: String, Sendable, Hashable, CaseIterable {
    case year = "YEAR"
    case month = "MONTH"
    case day = "DAY"
    case hour = "HOUR"
    case minute = "MINUTE"
    case second = "SECOND"
}

/// Which end `TRIM` trims.
enum TrimSide: String, Sendable, Hashable, CaseIterable {
    case both = "BOTH"
    case leading = "LEADING"
    case trailing = "TRAILING"
}

/// The types `CAST` converts to.
enum CastType: String, Sendable, Hashable, CaseIterable {
    case integer = "INTEGER"
    case real = "REAL"
    case text = "TEXT"
}

/// Why a `where` clause was rejected: a reason for the log, and the character offset where parsing stopped.
///
/// Clients only ever see ArcGIS' fixed text (`'where' parameter is invalid`); this detail is for the server log and tests.
struct WhereClauseError: Error, Sendable, Hashable, CustomStringConvertible {
    var reason: String
    var offset: Int

    var description: String { "where clause invalid at offset \(offset): \(reason)" }
}
