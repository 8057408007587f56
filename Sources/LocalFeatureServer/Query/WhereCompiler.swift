import FeatureModel
import Foundation

/// Turns a ``WhereExpression`` into parameterised SQL over a layer's columns.
///
/// Field names are looked up case-insensitively among the layer's fields and emitted as quoted column names;
/// every literal becomes a `?` binding; functions map to fixed SQLite expressions chosen from ``WhereFunction``.
/// No text of the clause ever reaches the SQL string.
///
/// Dates: Date fields hold epoch milliseconds, so date literals, `CURRENT_DATE`/`CURRENT_TIMESTAMP` (from `now`)
/// and intervals are bound as integers. A date compared with a plain string reads the string as a date or timestamp
/// literal; a date plus or minus a bare number is rejected (use `INTERVAL`), as is an interval anywhere but next to
/// a date.
///
/// ```swift
/// let fragment = try WhereCompiler(fields: layer.fields, now: clockMilliseconds).compile("state = 'CA' AND visitors > 1e6")
/// // fragment.sql == #"(("state" = ?) AND ("visitors" > ?))"#, fragment.bindings == [.text("CA"), .real(1e6)]
/// ```
struct WhereCompiler: Sendable {
    private let columns: [String: Field]
    private let now: Int64

    /// What a value is, as far as dates are concerned.
    private enum Kind: Equatable {
        case date
        case interval
        case other
    }

    /// A compiler for a layer with `fields`; each field is stored in a column of the same name.
    /// - Parameters:
    ///   - now: The current time in epoch milliseconds, for `CURRENT_DATE` and `CURRENT_TIMESTAMP`.
    init(fields: [Field], now: Int64 = WhereCompiler.systemMilliseconds()) {
        var columns: [String: Field] = [:]
        for field in fields where field.type != .geometry { columns[field.name.lowercased()] = field }
        self.columns = columns
        self.now = now
    }

    /// The system clock in epoch milliseconds (the default `now`; tests pass their own).
    static func systemMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }

    /// Parses and compiles `text` in one step.
    /// - Throws: ``WhereClauseError`` when the clause is outside the dialect or names an unknown field.
    func compile(_ text: String) throws(WhereClauseError) -> SQLFragment {
        try compile(WhereParser.parse(text))
    }

    /// The SQL for `expression`.
    /// - Throws: ``WhereClauseError`` when it names a field the layer does not have or mixes dates wrongly.
    func compile(_ expression: WhereExpression) throws(WhereClauseError) -> SQLFragment {
        var bindings: [SQLValue] = []
        let sql = try emit(expression, into: &bindings)
        return SQLFragment(sql, bindings)
    }

    private func emit(_ expression: WhereExpression, into bindings: inout [SQLValue]) throws(WhereClauseError) -> String {
        switch expression {
        case .and(let left, let right):
            return "(\(try emit(left, into: &bindings)) AND \(try emit(right, into: &bindings)))"
        case .or(let left, let right):
            return "(\(try emit(left, into: &bindings)) OR \(try emit(right, into: &bindings)))"
        case .not(let inner):
            return "(NOT \(try emit(inner, into: &bindings)))"
        case .comparison(let left, let comparison, let right):
            let (leftSide, rightSide) = try Self.pair(left, right, kinds: (try kind(of: left), try kind(of: right)))
            return "(\(try emitValue(leftSide, into: &bindings)) \(comparison.rawValue) \(try emitValue(rightSide, into: &bindings)))"
        case .isNull(let operand, let negated):
            return "(\(try emitValue(operand, into: &bindings)) IS \(negated ? "NOT " : "")NULL)"
        case .inList(let operand, let items, let negated):
            let head = try emitValue(operand, into: &bindings)
            let headKind = try kind(of: operand)
            var list: [String] = []
            for item in items {
                let (_, coerced) = try Self.pair(operand, item, kinds: (headKind, try kind(of: item)))
                list.append(try emitValue(coerced, into: &bindings))
            }
            return "(\(head) \(negated ? "NOT " : "")IN (\(list.joined(separator: ", "))))"
        case .between(let operand, let low, let high, let negated):
            let headKind = try kind(of: operand)
            let (_, lowSide) = try Self.pair(operand, low, kinds: (headKind, try kind(of: low)))
            let (_, highSide) = try Self.pair(operand, high, kinds: (headKind, try kind(of: high)))
            let head = try emitValue(operand, into: &bindings)
            let lowSQL = try emitValue(lowSide, into: &bindings)
            let highSQL = try emitValue(highSide, into: &bindings)
            return "(\(head) \(negated ? "NOT " : "")BETWEEN \(lowSQL) AND \(highSQL))"
        case .like(let operand, let pattern, let escape, let negated):
            let head = try emitValue(operand, into: &bindings)
            let patternSQL = try emitValue(pattern, into: &bindings)
            var sql = "(\(head) \(negated ? "NOT " : "")LIKE \(patternSQL)"
            if let escape {
                bindings.append(.text(escape))
                sql += " ESCAPE ?"
            }
            return sql + ")"
        }
    }

    /// `left` and `right` for a comparison: a plain string facing a date becomes a date literal.
    private static func pair(
        _ left: WhereOperand, _ right: WhereOperand, kinds: (Kind, Kind)
    ) throws(WhereClauseError) -> (
        WhereOperand, WhereOperand
    ) {
        func asDate(_ operand: WhereOperand) throws(WhereClauseError) -> WhereOperand {
            guard case .literal(.string(let text)) = operand else { return operand }
            guard let milliseconds = WhereTemporal.timestamp(text) else {
                throw WhereClauseError(reason: "'\(text)' is not a date (use date 'yyyy-mm-dd')", offset: 0)
            }
            return .literal(.epochMilliseconds(milliseconds))
        }
        switch kinds {
        case (.date, _): return (left, try asDate(right))
        case (_, .date): return (try asDate(left), right)
        default: return (left, right)
        }
    }

    private func field(_ name: String) throws(WhereClauseError) -> Field {
        guard let field = columns[name.lowercased()] else { throw WhereClauseError(reason: "unknown field '\(name)'", offset: 0) }
        return field
    }

    /// The date kind of `operand`, checking date arithmetic on the way.
    private func kind(of operand: WhereOperand) throws(WhereClauseError) -> Kind {
        switch operand {
        case .field(let name):
            return try field(name).type == .date ? .date : .other
        case .literal(.epochMilliseconds), .function(.currentDate, _), .function(.currentTimestamp, _):
            return .date
        case .literal(.interval):
            return .interval
        case .arithmetic(let left, let symbol, let right):
            switch (try kind(of: left), symbol, try kind(of: right)) {
            case (.date, .add, .interval), (.date, .subtract, .interval), (.interval, .add, .date):
                return .date
            case (.date, .subtract, .date), (.other, _, .other):
                return .other
            case (.date, _, .other), (.other, _, .date):
                throw WhereClauseError(reason: "add or subtract an INTERVAL to change a date", offset: 0)
            default:
                throw WhereClauseError(reason: "an INTERVAL can only be added to or subtracted from a date", offset: 0)
            }
        case .negate(let inner), .cast(let inner, _), .trim(_, _, let inner):
            guard try kind(of: inner) != .interval else { throw WhereClauseError(reason: "an INTERVAL is not a value", offset: 0) }
            return .other
        case .extract(_, let inner):
            guard try kind(of: inner) == .date else { throw WhereClauseError(reason: "EXTRACT needs a date", offset: 0) }
            return .other
        case .function(_, let arguments):
            for argument in arguments where try kind(of: argument) == .interval {
                throw WhereClauseError(reason: "an INTERVAL is not a value", offset: 0)
            }
            return .other
        case .literal:
            return .other
        }
    }

    /// A predicate's operand: anything but a bare interval.
    private func emitValue(_ operand: WhereOperand, into bindings: inout [SQLValue]) throws(WhereClauseError) -> String {
        guard try kind(of: operand) != .interval else {
            throw WhereClauseError(reason: "an INTERVAL can only be added to or subtracted from a date", offset: 0)
        }
        return try emit(operand, into: &bindings)
    }

    private func emit(_ operand: WhereOperand, into bindings: inout [SQLValue]) throws(WhereClauseError) -> String {
        switch operand {
        case .field(let name):
            return SQLFragment.quoted(try field(name).name)
        case .literal(let literal):
            bindings.append(Self.binding(literal))
            return "?"
        case .arithmetic(let left, let symbol, let right):
            _ = try kind(of: operand)
            return "(\(try emit(left, into: &bindings)) \(symbol.rawValue) \(try emit(right, into: &bindings)))"
        case .negate(let inner):
            return "(- \(try emit(inner, into: &bindings)))"
        case .extract(let part, let inner):
            _ = try kind(of: operand)
            let format: String
            switch part {
            case .year: format = "%Y"
            case .month: format = "%m"
            case .day: format = "%d"
            case .hour: format = "%H"
            case .minute: format = "%M"
            case .second: format = "%S"
            }
            return "CAST(strftime('\(format)', \(try emit(inner, into: &bindings)) / 1000.0, 'unixepoch') AS INTEGER)"
        case .trim(let side, let characters, let inner):
            let name = side == .both ? "trim" : side == .leading ? "ltrim" : "rtrim"
            let text = try emit(inner, into: &bindings)
            guard let characters else { return "\(name)(\(text))" }
            return "\(name)(\(text), \(try emit(characters, into: &bindings)))"
        case .cast(let inner, let type):
            return "CAST(\(try emit(inner, into: &bindings)) AS \(type.rawValue))"
        case .function(let function, let arguments):
            return try emit(function, arguments, into: &bindings)
        }
    }

    private func emit(_ function: WhereFunction, _ arguments: [WhereOperand], into bindings: inout [SQLValue]) throws(WhereClauseError) -> String {
        // Arguments are emitted in the order they appear in the SQL, so the bindings line up with the placeholders.
        let ordered = function == .position ? Array(arguments.reversed()) : arguments
        var sql: [String] = []
        for argument in ordered { sql.append(try emit(argument, into: &bindings)) }
        let list = sql.joined(separator: ", ")
        switch function {
        case .currentDate:
            bindings.append(.integer(WhereTemporal.startOfDay(now)))
            return "?"
        case .currentTimestamp:
            bindings.append(.integer(now))
            return "?"
        case .upper: return "upper(\(list))"
        case .lower: return "lower(\(list))"
        case .charLength: return "length(\(list))"
        case .concat: return "(" + sql.map { "ifnull(\($0), '')" }.joined(separator: " || ") + ")"
        case .position: return "instr(\(list))"
        case .substring: return "substr(\(list))"
        case .abs: return "abs(\(list))"
        case .ceiling: return "ceiling(\(list))"
        case .floor: return "floor(\(list))"
        case .round: return "round(\(list))"
        case .truncate:
            guard arguments.count == 2 else { return "trunc(\(list))" }
            // The digits argument appears twice in the SQL, so its bindings are emitted twice, in order.
            let again = try emit(arguments[1], into: &bindings)
            return "(trunc(\(sql[0]) * power(10.0, \(sql[1]))) / power(10.0, \(again)))"
        case .mod: return "mod(\(list))"
        case .power: return "power(\(list))"
        case .log: return "ln(\(list))"
        case .log10: return "log10(\(list))"
        case .sin: return "sin(\(list))"
        case .cos: return "cos(\(list))"
        case .tan: return "tan(\(list))"
        case .coalesce: return "coalesce(\(list))"
        case .nullIf: return "nullif(\(list))"
        }
    }

    private static func binding(_ literal: WhereLiteral) -> SQLValue {
        switch literal {
        case .integer(let value): return .integer(value)
        case .real(let value): return .real(value)
        case .string(let value): return .text(value)
        case .epochMilliseconds(let value): return .integer(value)
        case .interval(let milliseconds): return .integer(milliseconds)
        }
    }
}
