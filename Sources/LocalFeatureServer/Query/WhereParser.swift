/// Parses a `where` clause into a ``WhereExpression``: the dialect of ArcGIS standardized queries.
///
/// ## The dialect
///
/// - Predicates: `=`, `<>` (also `!=`), `<`, `<=`, `>`, `>=`; `IS [NOT] NULL`; `[NOT] IN (v, …)`;
///   `[NOT] BETWEEN low AND high`; `[NOT] LIKE 'pattern' [ESCAPE 'c']` (`%` and `_` wildcards).
/// - Logic: `AND`, `OR`, `NOT` (that precedence, loosest last) and parentheses; `1=1` means every row.
/// - Values: field names (case-insensitive), integers, decimals (`1.5`, `2e3`), strings in single quotes (`''` for a
///   quote), arithmetic `+ - * /` with unary minus, and the functions of ``WhereFunction``.
/// - Dates (stored as epoch milliseconds, compared in UTC): `date 'yyyy-mm-dd'`, `timestamp 'yyyy-mm-dd HH:MI:SS'`
///   (optionally `.fff`), `CURRENT_DATE`, `CURRENT_TIMESTAMP`, `INTERVAL 'n' DAY|HOUR|MINUTE|SECOND` added to or
///   subtracted from a date (`CURRENT_TIMESTAMP - INTERVAL '3' DAY`), and `EXTRACT(YEAR FROM d)`. A plain string
///   compared with a Date field is read as a date or timestamp literal.
///
/// Grammar (case-insensitive keywords):
/// ```
/// clause     := or
/// or         := and ( OR and )*
/// and        := not ( AND not )*
/// not        := NOT not | predicate
/// predicate  := sum [ compare sum | IS [NOT] NULL | [NOT] IN '(' sum ( ',' sum )* ')'
///                   | [NOT] BETWEEN sum AND sum | [NOT] LIKE sum [ ESCAPE string ] ]
/// sum        := product ( ( '+' | '-' ) product )*
/// product    := unary ( ( '*' | '/' ) unary )*
/// unary      := ( '-' | '+' ) unary | primary
/// primary    := '(' or ')' | number | string | field | DATE string | TIMESTAMP string | INTERVAL string unit
///             | function '(' arguments ')' | CURRENT_DATE | CURRENT_TIMESTAMP
/// ```
/// A parenthesised `or` is a condition or a value depending on what it holds; conditions are only accepted where
/// a condition belongs, values where a value belongs.
///
/// Rejected, always: subqueries (`SELECT`, `EXISTS`), functions outside the list, `;`, comments (`--`, `/* */`),
/// `||`, double-quoted identifiers, parameters, blob literals, unbalanced quotes or parentheses, `NULL` outside
/// `IS [NOT] NULL`, and nesting deeper than ``maximumDepth``. Field names are not checked here;
/// ``WhereCompiler`` does that against the layer's fields.
struct WhereParser {
    /// Deepest nesting of parentheses, `NOT`, signs and function calls accepted, so hostile input cannot exhaust
    /// the stack.
    static let maximumDepth = 64
    /// Most AND, OR and arithmetic operators in one clause. Chains of them build trees as tall as they are long, and
    /// the compiler walks trees recursively, so an unbounded chain would exhaust the stack as surely as nesting.
    static let maximumOperators = 1_000

    /// What a sub-clause turned out to be: a condition (true/false/unknown) or a value.
    enum Node {
        case condition(WhereExpression)
        case value(WhereOperand)
    }

    let tokens: [(token: WhereToken, offset: Int)]
    var position = 0
    var depth = 0
    var operators = 0

    private init(tokens: [(token: WhereToken, offset: Int)]) {
        self.tokens = tokens
    }

    /// Parses `text`; an empty or blank clause means "all rows" and parses as `1 = 1`.
    /// - Throws: ``WhereClauseError`` when `text` is outside the dialect.
    static func parse(_ text: String) throws(WhereClauseError) -> WhereExpression {
        let tokens = try WhereLexer.tokenize(text)
        if tokens.count == 1 { return .comparison(.literal(.integer(1)), .equal, .literal(.integer(1))) }
        var parser = WhereParser(tokens: tokens)
        let node = try parser.parseOr()
        guard parser.current == .end else { throw parser.error("unexpected \(parser.describe(parser.current))") }
        return try parser.condition(node)
    }

    var current: WhereToken { tokens[position].token }

    /// The token after the current one.
    var next: WhereToken { tokens[min(position + 1, tokens.count - 1)].token }

    mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    func error(_ reason: String) -> WhereClauseError {
        WhereClauseError(reason: reason, offset: tokens[position].offset)
    }

    mutating func accept(_ keyword: WhereKeyword) -> Bool {
        guard current == .keyword(keyword) else { return false }
        advance()
        return true
    }

    mutating func accept(_ symbol: WhereSymbol) -> Bool {
        guard current == .symbol(symbol) else { return false }
        advance()
        return true
    }

    /// Accepts the identifier `word` (compared case-insensitively): contextual words such as `FROM`, `FOR`, `AS`.
    mutating func accept(word: String) -> Bool {
        guard case .identifier(let name) = current, name.uppercased() == word else { return false }
        advance()
        return true
    }

    mutating func expect(_ symbol: WhereSymbol) throws(WhereClauseError) {
        guard current == .symbol(symbol) else { throw error("expected '\(symbol.rawValue)', found \(describe(current))") }
        advance()
    }

    /// Counts one more binary operator, failing past ``maximumOperators``.
    mutating func countOperator() throws(WhereClauseError) {
        operators += 1
        guard operators <= Self.maximumOperators else { throw error("more than \(Self.maximumOperators) AND, OR or arithmetic operators") }
    }

    /// Runs `body` one nesting level deeper, failing past ``maximumDepth``.
    mutating func nested<T>(_ body: (inout WhereParser) throws(WhereClauseError) -> T) throws(WhereClauseError) -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        return try body(&self)
    }

    func condition(_ node: Node) throws(WhereClauseError) -> WhereExpression {
        guard case .condition(let expression) = node else {
            throw error("expected a comparison, IS, IN, BETWEEN or LIKE, found \(describe(current))")
        }
        return expression
    }

    func value(_ node: Node) throws(WhereClauseError) -> WhereOperand {
        guard case .value(let operand) = node else { throw error("a condition cannot be used as a value") }
        return operand
    }

    mutating func parseOr() throws(WhereClauseError) -> Node {
        var left = try parseAnd()
        while accept(.or) {
            try countOperator()
            let right = try parseAnd()
            left = .condition(.or(try condition(left), try condition(right)))
        }
        return left
    }

    private mutating func parseAnd() throws(WhereClauseError) -> Node {
        var left = try parseNot()
        while accept(.and) {
            try countOperator()
            let right = try parseNot()
            left = .condition(.and(try condition(left), try condition(right)))
        }
        return left
    }

    private mutating func parseNot() throws(WhereClauseError) -> Node {
        if accept(.not) {
            return try nested { parser throws(WhereClauseError) in .condition(.not(try parser.condition(try parser.parseNot()))) }
        }
        return try parsePredicate()
    }

    private mutating func parsePredicate() throws(WhereClauseError) -> Node {
        let leftNode = try parseSum()
        if case .symbol(let symbol) = current, let comparison = Self.comparison(for: symbol) {
            let left = try value(leftNode)
            advance()
            return .condition(.comparison(left, comparison, try parseValue()))
        }
        if accept(.is) {
            let left = try value(leftNode)
            let negated = accept(.not)
            guard accept(.null) else { throw error("expected NULL after IS, found \(describe(current))") }
            return .condition(.isNull(left, negated: negated))
        }
        let negated = accept(.not)
        if accept(.in) {
            let left = try value(leftNode)
            try expect(.openParenthesis)
            var items = [try parseValue()]
            while accept(.comma) { items.append(try parseValue()) }
            try expect(.closeParenthesis)
            return .condition(.inList(left, items, negated: negated))
        }
        if accept(.between) {
            let left = try value(leftNode)
            let low = try parseValue()
            guard accept(.and) else { throw error("expected AND in BETWEEN, found \(describe(current))") }
            return .condition(.between(left, low: low, high: try parseValue(), negated: negated))
        }
        if accept(.like) {
            let left = try value(leftNode)
            let pattern = try parseValue()
            var escape: String?
            if accept(.escape) {
                guard case .string(let text) = current, text.unicodeScalars.count == 1 else {
                    throw error("ESCAPE needs a one-character string")
                }
                escape = text
                advance()
            }
            return .condition(.like(left, pattern: pattern, escape: escape, negated: negated))
        }
        if negated { throw error("expected IN, BETWEEN or LIKE after NOT, found \(describe(current))") }
        // A parenthesised condition, or a value whose use decides (a bare value where a condition belongs fails there).
        return leftNode
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

    func describe(_ token: WhereToken) -> String {
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
