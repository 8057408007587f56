/// A token of the `where` dialect.
enum WhereToken: Sendable, Hashable {
    case identifier(String)
    case keyword(WhereKeyword)
    case integer(Int64)
    case real(Double)
    case string(String)
    case symbol(WhereSymbol)
    case end
}

/// Reserved words, recognised case-insensitively. They can never name a field.
enum WhereKeyword: String, Sendable, Hashable, CaseIterable {
    case and = "AND"
    case or = "OR"
    case not = "NOT"
    case `is` = "IS"
    case null = "NULL"
    case `in` = "IN"
    case like = "LIKE"
    case escape = "ESCAPE"
    case between = "BETWEEN"
}

/// Punctuation and operators.
enum WhereSymbol: String, Sendable, Hashable {
    case equal = "="
    case notEqual = "<>"
    case bangEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case openParenthesis = "("
    case closeParenthesis = ")"
    case comma = ","
    case plus = "+"
    case minus = "-"
    case asterisk = "*"
    case slash = "/"
}

/// Splits a `where` clause into tokens.
///
/// Anything outside the dialect is an error here already: `;`, comments (`--`, `/*`), double quotes, `|` (so
/// `||` too), brackets, parameters (`?`, `:x`, `@x`, `$x`), blob literals, and unterminated strings.
struct WhereLexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// All tokens with the offset each starts at, ending with `.end`.
    /// - Throws: ``WhereClauseError`` for a character or construct outside the dialect.
    static func tokenize(_ text: String) throws(WhereClauseError) -> [(token: WhereToken, offset: Int)] {
        var lexer = WhereLexer(text)
        var tokens: [(token: WhereToken, offset: Int)] = []
        while true {
            let (token, offset) = try lexer.next()
            tokens.append((token, offset))
            if token == .end { return tokens }
        }
    }

    private mutating func next() throws(WhereClauseError) -> (WhereToken, Int) {
        while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
        let start = index
        guard index < scalars.count else { return (.end, start) }
        let scalar = scalars[index]
        switch scalar {
        case "'":
            return (.string(try readString()), start)
        case "0"..."9", ".":
            return (try readNumber(), start)
        case "(":
            index += 1
            return (.symbol(.openParenthesis), start)
        case ")":
            index += 1
            return (.symbol(.closeParenthesis), start)
        case ",":
            index += 1
            return (.symbol(.comma), start)
        case "=":
            index += 1
            return (.symbol(.equal), start)
        case "<":
            index += 1
            if peek == "=" {
                index += 1
                return (.symbol(.lessOrEqual), start)
            }
            if peek == ">" {
                index += 1
                return (.symbol(.notEqual), start)
            }
            return (.symbol(.less), start)
        case ">":
            index += 1
            if peek == "=" {
                index += 1
                return (.symbol(.greaterOrEqual), start)
            }
            return (.symbol(.greater), start)
        case "!":
            index += 1
            guard peek == "=" else { throw WhereClauseError(reason: "'!' must be followed by '='", offset: start) }
            index += 1
            return (.symbol(.bangEqual), start)
        case "-":
            index += 1
            if peek == "-" { throw WhereClauseError(reason: "comments are not allowed", offset: start) }
            return (.symbol(.minus), start)
        case "+":
            index += 1
            return (.symbol(.plus), start)
        case "*":
            index += 1
            if peek == "/" { throw WhereClauseError(reason: "comments are not allowed", offset: start) }
            return (.symbol(.asterisk), start)
        case "/":
            index += 1
            if peek == "*" { throw WhereClauseError(reason: "comments are not allowed", offset: start) }
            return (.symbol(.slash), start)
        default:
            if Self.isIdentifierStart(scalar) {
                var word = ""
                while index < scalars.count, Self.isIdentifierPart(scalars[index]) {
                    word.unicodeScalars.append(scalars[index])
                    index += 1
                }
                if let keyword = WhereKeyword(rawValue: word.uppercased()) { return (.keyword(keyword), start) }
                return (.identifier(word), start)
            }
            throw WhereClauseError(reason: "unexpected character '\(scalar)'", offset: start)
        }
    }

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func readString() throws(WhereClauseError) -> String {
        let start = index
        index += 1  // opening quote
        var value = ""
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if scalar == "'" {
                if peek == "'" {
                    value.unicodeScalars.append("'")
                    index += 1
                } else {
                    return value
                }
            } else {
                value.unicodeScalars.append(scalar)
            }
        }
        throw WhereClauseError(reason: "unterminated string literal", offset: start)
    }

    private mutating func readNumber() throws(WhereClauseError) -> WhereToken {
        let start = index
        var text = ""
        var isReal = false
        func digits(_ lexer: inout WhereLexer, _ text: inout String) -> Int {
            var count = 0
            while let s = lexer.peek, ("0"..."9").contains(s) {
                text.unicodeScalars.append(s)
                lexer.index += 1
                count += 1
            }
            return count
        }
        var count = digits(&self, &text)
        if peek == "." {
            isReal = true
            text.append(".")
            index += 1
            count += digits(&self, &text)
        }
        guard count > 0 else { throw WhereClauseError(reason: "malformed number", offset: start) }
        if peek == "e" || peek == "E" {
            isReal = true
            text.append("e")
            index += 1
            if peek == "+" || peek == "-" {
                text.unicodeScalars.append(peek!)
                index += 1
            }
            guard digits(&self, &text) > 0 else { throw WhereClauseError(reason: "malformed exponent", offset: start) }
        }
        if let next = peek, Self.isIdentifierPart(next) {
            throw WhereClauseError(reason: "malformed number", offset: start)
        }
        if !isReal, let integer = Int64(text) { return .integer(integer) }
        guard let real = Double(text), real.isFinite else { throw WhereClauseError(reason: "number out of range", offset: start) }
        return .real(real)
    }

    private static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    private static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || ("0"..."9").contains(scalar)
    }
}
