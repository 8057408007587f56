/// A JSON document whose objects keep their members in the order written, for the scenario schema: fragments are
/// written as Swift literals (`["type": "string", "minLength": 1]`) and printed in that order, so the generated file
/// reads as its sources do.
package enum SchemaValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case null
    case array([SchemaValue])
    case object([Member])

    /// One member of an object.
    package struct Member: Sendable, Equatable {
        package var key: String
        package var value: SchemaValue
        package init(_ key: String, _ value: SchemaValue) {
            self.key = key
            self.value = value
        }
    }

    /// The member `key` of an object; nil for other values or a missing key. Setting it replaces the member in
    /// place, or appends it.
    package subscript(key: String) -> SchemaValue? {
        get {
            guard case .object(let members) = self else { return nil }
            return members.first { $0.key == key }?.value
        }
        set {
            guard case .object(var members) = self else { return }
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(Member(key, newValue))
            }
            self = .object(members)
        }
    }

    /// The value at `path` of member keys, e.g. `["$defs", "scenario", "properties"]`.
    package subscript(path path: [String]) -> SchemaValue? {
        get { path.reduce(Optional(self)) { $0?[$1] } }
        set {
            guard let first = path.first else {
                if let newValue { self = newValue }
                return
            }
            var child = self[first] ?? .object([])
            child[path: Array(path.dropFirst())] = newValue
            self[first] = child
        }
    }

    /// The members' keys of an object, in order; empty for other values.
    package var keys: [String] {
        guard case .object(let members) = self else { return [] }
        return members.map(\.key)
    }
}

extension SchemaValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int) { self = .integer(value) }
    package init(floatLiteral value: Double) { self = .number(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(arrayLiteral elements: SchemaValue...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, SchemaValue)...) { self = .object(elements.map { Member($0.0, $0.1) }) }
}

extension SchemaValue {
    /// The document as JSON text, two spaces per level, one member or element per line, non-ASCII as is.
    package func printed() -> String {
        var out = ""
        write(to: &out, indent: "")
        return out
    }

    private func write(to out: inout String, indent: String) {
        switch self {
        case .string(let text): Self.quote(text, to: &out)
        case .integer(let value): out += String(value)
        case .number(let value): out += value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case .bool(let value): out += value ? "true" : "false"
        case .null: out += "null"
        case .array(let items):
            guard !items.isEmpty else {
                out += "[]"
                return
            }
            // A short list of plain values on one line, as it would be written by hand.
            if items.allSatisfy(\.isScalar) {
                var line = ""
                for (index, item) in items.enumerated() {
                    if index > 0 { line += ", " }
                    item.write(to: &line, indent: indent)
                }
                if line.count <= 100 {
                    out += "[" + line + "]"
                    return
                }
            }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += indent + "  "
                item.write(to: &out, indent: indent + "  ")
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case .object(let members):
            guard !members.isEmpty else {
                out += "{}"
                return
            }
            out += "{\n"
            for (index, member) in members.enumerated() {
                out += indent + "  "
                Self.quote(member.key, to: &out)
                out += ": "
                member.value.write(to: &out, indent: indent + "  ")
                out += index == members.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        }
    }

    private var isScalar: Bool {
        switch self {
        case .array, .object: return false
        default: return true
        }
    }

    private static func quote(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
