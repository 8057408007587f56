import FeatureModel

/// Turns a ``WhereExpression`` into parameterised SQL over a layer's columns.
///
/// Field names are looked up case-insensitively among the layer's fields and emitted as quoted column names;
/// literals become `?` bindings. A field the layer does not have is an error.
struct WhereCompiler: Sendable {
    private let columns: [String: Field]

    /// A compiler for a layer with `fields`; each field is stored in a column of the same name.
    init(fields: [Field]) {
        var columns: [String: Field] = [:]
        for field in fields where field.type != .geometry { columns[field.name.lowercased()] = field }
        self.columns = columns
    }

    /// Parses and compiles `text` in one step.
    /// - Throws: ``WhereClauseError`` when the clause is outside the dialect or names an unknown field.
    func compile(_ text: String) throws(WhereClauseError) -> SQLFragment {
        try compile(WhereParser.parse(text))
    }

    /// The SQL for `expression`.
    /// - Throws: ``WhereClauseError`` when it names a field the layer does not have.
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
            return "(\(try emit(left, into: &bindings)) \(comparison.rawValue) \(try emit(right, into: &bindings)))"
        case .isNull(let operand, let negated):
            return "(\(try emit(operand, into: &bindings)) IS \(negated ? "NOT " : "")NULL)"
        case .inList(let operand, let items, let negated):
            let head = try emit(operand, into: &bindings)
            var list: [String] = []
            for item in items { list.append(try emit(item, into: &bindings)) }
            return "(\(head) \(negated ? "NOT " : "")IN (\(list.joined(separator: ", "))))"
        case .like(let operand, let pattern, let escape, let negated):
            let head = try emit(operand, into: &bindings)
            let patternSQL = try emit(pattern, into: &bindings)
            var sql = "(\(head) \(negated ? "NOT " : "")LIKE \(patternSQL)"
            if let escape {
                bindings.append(.text(escape))
                sql += " ESCAPE ?"
            }
            return sql + ")"
        }
    }

    private func emit(_ operand: WhereOperand, into bindings: inout [SQLValue]) throws(WhereClauseError) -> String {
        switch operand {
        case .field(let name):
            guard let field = columns[name.lowercased()] else {
                throw WhereClauseError(reason: "unknown field '\(name)'", offset: 0)
            }
            return SQLFragment.quoted(field.name)
        case .literal(.integer(let value)):
            bindings.append(.integer(value))
            return "?"
        case .literal(.real(let value)):
            bindings.append(.real(value))
            return "?"
        case .literal(.string(let value)):
            bindings.append(.text(value))
            return "?"
        }
    }
}
