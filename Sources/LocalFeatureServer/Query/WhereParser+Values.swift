extension WhereParser {
    /// A `sum` that must be a value.
    mutating func parseValue() throws(WhereClauseError) -> WhereOperand {
        try value(try parseSum())
    }

    mutating func parseSum() throws(WhereClauseError) -> Node {
        var left = try parseProduct()
        while true {
            let symbol: ArithmeticOperator
            if accept(.plus) {
                symbol = .add
            } else if accept(.minus) {
                symbol = .subtract
            } else {
                return left
            }
            try countOperator()
            let right = try parseProduct()
            left = .value(.arithmetic(try value(left), symbol, try value(right)))
        }
    }

    private mutating func parseProduct() throws(WhereClauseError) -> Node {
        var left = try parseUnary()
        while true {
            let symbol: ArithmeticOperator
            if accept(.asterisk) {
                symbol = .multiply
            } else if accept(.slash) {
                symbol = .divide
            } else {
                return left
            }
            try countOperator()
            let right = try parseUnary()
            left = .value(.arithmetic(try value(left), symbol, try value(right)))
        }
    }

    private mutating func parseUnary() throws(WhereClauseError) -> Node {
        if accept(.minus) {
            return try nested { parser throws(WhereClauseError) in
                switch parser.current {
                case .integer(let number):
                    parser.advance()
                    return .value(.literal(.integer(-number)))
                case .real(let number):
                    parser.advance()
                    return .value(.literal(.real(-number)))
                default:
                    return .value(.negate(try parser.value(try parser.parseUnary())))
                }
            }
        }
        if accept(.plus) {
            return try nested { parser throws(WhereClauseError) in .value(try parser.value(try parser.parseUnary())) }
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(WhereClauseError) -> Node {
        switch current {
        case .symbol(.openParenthesis):
            return try nested { parser throws(WhereClauseError) in
                parser.advance()
                let inner = try parser.parseOr()
                try parser.expect(.closeParenthesis)
                return inner
            }
        case .integer(let number):
            advance()
            return .value(.literal(.integer(number)))
        case .real(let number):
            advance()
            return .value(.literal(.real(number)))
        case .string(let text):
            advance()
            return .value(.literal(.string(text)))
        case .identifier(let name):
            return .value(try parseIdentifier(name))
        default:
            throw error("expected a field or a literal, found \(describe(current))")
        }
    }

    /// A field, a typed literal (`date '…'`, `timestamp '…'`, `INTERVAL '…' unit`), or a function call.
    private mutating func parseIdentifier(_ name: String) throws(WhereClauseError) -> WhereOperand {
        let upper = name.uppercased()
        if case .string(let text) = next {
            switch upper {
            case "DATE":
                advance()
                guard let milliseconds = WhereTemporal.date(text) else { throw error("date literal must be 'yyyy-mm-dd'") }
                advance()
                return .literal(.epochMilliseconds(milliseconds))
            case "TIMESTAMP":
                advance()
                guard let milliseconds = WhereTemporal.timestamp(text) else {
                    throw error("timestamp literal must be 'yyyy-mm-dd HH:MI:SS'")
                }
                advance()
                return .literal(.epochMilliseconds(milliseconds))
            case "INTERVAL":
                advance()
                advance()
                guard case .identifier(let unitName) = current, let unit = WhereTemporal.IntervalUnit(rawValue: unitName.uppercased()) else {
                    throw error("INTERVAL needs a unit: DAY, HOUR, MINUTE or SECOND")
                }
                guard let milliseconds = WhereTemporal.interval(text, unit: unit) else { throw error("INTERVAL amount must be a number") }
                advance()
                return .literal(.interval(milliseconds: milliseconds))
            default:
                break
            }
        }
        if upper == "CURRENT_DATE" || upper == "CURRENT_TIMESTAMP" {
            advance()
            if accept(.openParenthesis) { try expect(.closeParenthesis) }
            return .function(upper == "CURRENT_DATE" ? .currentDate : .currentTimestamp, [])
        }
        guard next == .symbol(.openParenthesis) else {
            advance()
            return .field(name)
        }
        advance()
        advance()
        return try nested { parser throws(WhereClauseError) in
            let call = try parser.parseCall(upper)
            try parser.expect(.closeParenthesis)
            return call
        }
    }

    /// The arguments of the function `name` (after its opening parenthesis, up to its closing one).
    private mutating func parseCall(_ name: String) throws(WhereClauseError) -> WhereOperand {
        switch name {
        case "EXTRACT":
            guard case .identifier(let partName) = current, let part = DatePart(rawValue: partName.uppercased()) else {
                throw error("EXTRACT needs YEAR, MONTH, DAY, HOUR, MINUTE or SECOND")
            }
            advance()
            guard accept(word: "FROM") else { throw error("expected FROM in EXTRACT") }
            return .extract(part, try parseValue())
        case "CAST":
            let operand = try parseValue()
            guard accept(word: "AS") else { throw error("expected AS in CAST") }
            return .cast(operand, try parseCastType())
        case "TRIM":
            var side = TrimSide.both
            var sideGiven = false
            if case .identifier(let word) = current, let named = TrimSide(rawValue: word.uppercased()) {
                side = named
                sideGiven = true
                advance()
            }
            if sideGiven && accept(word: "FROM") { return .trim(side, characters: nil, try parseValue()) }
            let first = try parseValue()
            if accept(word: "FROM") { return .trim(side, characters: first, try parseValue()) }
            guard !sideGiven else { throw error("expected FROM in TRIM") }
            return .trim(.both, characters: nil, first)
        case "POSITION":
            let needle = try parseValue()
            guard accept(.in) else { throw error("expected IN in POSITION") }
            return .function(.position, [needle, try parseValue()])
        case "SUBSTRING":
            let text = try parseValue()
            let fromSyntax = accept(word: "FROM")
            if !fromSyntax { try expect(.comma) }
            var arguments = [text, try parseValue()]
            if fromSyntax ? accept(word: "FOR") : accept(.comma) { arguments.append(try parseValue()) }
            return .function(.substring, arguments)
        default:
            guard let function = WhereFunction.named(name) else { throw error("function '\(name)' is not supported") }
            var arguments: [WhereOperand] = []
            if current != .symbol(.closeParenthesis) {
                arguments.append(try parseValue())
                while accept(.comma) { arguments.append(try parseValue()) }
            }
            guard function.arity.contains(arguments.count) else {
                throw error("\(function.rawValue) takes \(function.arity.lowerBound)…\(function.arity.upperBound) arguments")
            }
            return .function(function, arguments)
        }
    }

    private mutating func parseCastType() throws(WhereClauseError) -> CastType {
        guard case .identifier(let word) = current else { throw error("CAST needs a type") }
        advance()
        let type: CastType
        switch word.uppercased() {
        case "INTEGER", "INT", "SMALLINT", "BIGINT": type = .integer
        case "FLOAT", "REAL", "DOUBLE", "NUMERIC", "DECIMAL": type = .real
        case "VARCHAR", "CHAR", "NVARCHAR", "NCHAR", "TEXT", "STRING": type = .text
        default: throw error("CAST to '\(word)' is not supported")
        }
        if accept(.openParenthesis) {
            guard case .integer = current else { throw error("expected a length") }
            advance()
            if accept(.comma) {
                guard case .integer = current else { throw error("expected a scale") }
                advance()
            }
            try expect(.closeParenthesis)
        }
        return type
    }
}
