/// Parses a `where` clause into a ``WhereExpression``.
///
/// Grammar (case-insensitive keywords):
/// ```
/// expression := and ( OR and )*
/// and        := not ( AND not )*
/// not        := NOT not | '(' expression ')' | predicate
/// predicate  := operand ( compare operand
///                       | IS [NOT] NULL
///                       | [NOT] IN '(' operand ( ',' operand )* ')'
///                       | [NOT] LIKE operand [ ESCAPE string ] )
/// operand    := field | number | '-' number | string
/// ```
/// Anything else (subqueries, functions, `;`, comments, unknown operators) is rejected. Field names are not
/// checked here; ``WhereCompiler`` does that against the layer's fields.
struct WhereParser {
    /// Deepest nesting of parentheses and `NOT` accepted, so hostile input cannot exhaust the stack.
    static let maximumDepth = 64

    private let tokens: [(token: WhereToken, offset: Int)]
    private var position = 0
    private var depth = 0

    private init(tokens: [(token: WhereToken, offset: Int)]) {
        self.tokens = tokens
    }

    /// Parses `text`; an empty or blank clause means "all rows" and parses as `1 = 1`.
    /// - Throws: ``WhereClauseError`` when `text` is outside the dialect.
    static func parse(_ text: String) throws(WhereClauseError) -> WhereExpression {
        let tokens = try WhereLexer.tokenize(text)
        if tokens.count == 1 { return .comparison(.literal(.integer(1)), .equal, .literal(.integer(1))) }
        var parser = WhereParser(tokens: tokens)
        let expression = try parser.parseOr()
        guard parser.current == .end else { throw parser.error("unexpected \(parser.describe(parser.current))") }
        return expression
    }

    private var current: WhereToken { tokens[position].token }

    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    private func error(_ reason: String) -> WhereClauseError {
        WhereClauseError(reason: reason, offset: tokens[position].offset)
    }

    private mutating func accept(_ keyword: WhereKeyword) -> Bool {
        guard current == .keyword(keyword) else { return false }
        advance()
        return true
    }

    private mutating func expect(_ symbol: WhereSymbol) throws(WhereClauseError) {
        guard current == .symbol(symbol) else { throw error("expected '\(symbol.rawValue)', found \(describe(current))") }
        advance()
    }

    private mutating func parseOr() throws(WhereClauseError) -> WhereExpression {
        var left = try parseAnd()
        while accept(.or) { left = .or(left, try parseAnd()) }
        return left
    }

    private mutating func parseAnd() throws(WhereClauseError) -> WhereExpression {
        var left = try parseNot()
        while accept(.and) { left = .and(left, try parseNot()) }
        return left
    }

    private mutating func parseNot() throws(WhereClauseError) -> WhereExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        if accept(.not) { return .not(try parseNot()) }
        if current == .symbol(.openParenthesis) {
            advance()
            let inner = try parseOr()
            try expect(.closeParenthesis)
            return inner
        }
        return try parsePredicate()
    }

    private mutating func parsePredicate() throws(WhereClauseError) -> WhereExpression {
        let left = try parseOperand()
        if case .symbol(let symbol) = current, let comparison = Self.comparison(for: symbol) {
            advance()
            return .comparison(left, comparison, try parseOperand())
        }
        if accept(.is) {
            let negated = accept(.not)
            guard accept(.null) else { throw error("expected NULL after IS, found \(describe(current))") }
            return .isNull(left, negated: negated)
        }
        let negated = accept(.not)
        if accept(.in) {
            try expect(.openParenthesis)
            var items = [try parseOperand()]
            while current == .symbol(.comma) {
                advance()
                items.append(try parseOperand())
            }
            try expect(.closeParenthesis)
            return .inList(left, items, negated: negated)
        }
        if accept(.like) {
            let pattern = try parseOperand()
            var escape: String?
            if accept(.escape) {
                guard case .string(let text) = current, text.unicodeScalars.count == 1 else {
                    throw error("ESCAPE needs a one-character string")
                }
                escape = text
                advance()
            }
            return .like(left, pattern: pattern, escape: escape, negated: negated)
        }
        throw error("expected a comparison, IS, IN or LIKE, found \(describe(current))")
    }

    private mutating func parseOperand() throws(WhereClauseError) -> WhereOperand {
        switch current {
        case .identifier(let name):
            advance()
            if current == .symbol(.openParenthesis) { throw error("function '\(name)' is not supported") }
            return .field(name)
        case .integer(let value):
            advance()
            return .literal(.integer(value))
        case .real(let value):
            advance()
            return .literal(.real(value))
        case .string(let value):
            advance()
            return .literal(.string(value))
        case .symbol(.minus):
            advance()
            switch current {
            case .integer(let value):
                advance()
                return .literal(.integer(-value))
            case .real(let value):
                advance()
                return .literal(.real(-value))
            default:
                throw error("expected a number after '-'")
            }
        default:
            throw error("expected a field or a literal, found \(describe(current))")
        }
    }

    private static func comparison(for symbol: WhereSymbol) -> ComparisonOperator? {
        switch symbol {
        case .equal: return .equal
        case .notEqual, .bangEqual: return .notEqual
        case .less: return .less
        case .lessOrEqual: return .lessOrEqual
        case .greater: return .greater
        case .greaterOrEqual: return .greaterOrEqual
        default: return nil
        }
    }

    private func describe(_ token: WhereToken) -> String {
        switch token {
        case .identifier(let name): return "'\(name)'"
        case .keyword(let keyword): return keyword.rawValue
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .string: return "a string"
        case .symbol(let symbol): return "'\(symbol.rawValue)'"
        case .end: return "the end of the clause"
        }
    }
}
