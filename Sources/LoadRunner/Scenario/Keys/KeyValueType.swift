import Foundation
import Yams

/// The type of a scenario key's value: how it is read from the file (with its range), how the schema types it,
/// and how a value is written in the schema and in a fix.
struct KeyValueType<Value: Sendable>: Sendable {
    /// The schema members that type the value: a `$ref` to a value type, and the range where there is one.
    let schema: [SchemaValue.Member]
    /// Reads a value the file gives; nil when it is refused, after reporting why.
    let read: @Sendable (KeyRead, inout NodeReader) -> Value?
    /// A value as the schema writes it (`default`, `examples`); nil for none.
    let render: @Sendable (Value) -> SchemaValue?
    /// A value as a fix suggests writing it in YAML; nil for none.
    let yaml: @Sendable (Value) -> String?

    init(
        schema: [SchemaValue.Member], read: @escaping @Sendable (KeyRead, inout NodeReader) -> Value?,
        render: @escaping @Sendable (Value) -> SchemaValue?, yaml: @escaping @Sendable (Value) -> String?
    ) {
        self.schema = schema
        self.read = read
        self.render = render
        self.yaml = yaml
    }

    /// The same values, absent when the file leaves the key out.
    static func optional<Wrapped>(_ base: KeyValueType<Wrapped>) -> KeyValueType<Wrapped?> where Value == Wrapped? {
        KeyValueType<Wrapped?>(
            schema: base.schema, read: { key, reader in base.read(key, &reader).map { Optional($0) } },
            render: { $0.flatMap(base.render) }, yaml: { $0.flatMap(base.yaml) })
    }

    /// The schema member `$ref` to one of the value types of `$defs`.
    static func ref(_ definition: String) -> SchemaValue.Member { .init("$ref", .string("#/$defs/\(definition)")) }
}

extension KeyValueType where Value == Int {
    /// A whole number in `range`.
    static func integer(_ range: ClosedRange<Int>) -> Self {
        Self(
            schema: [ref("integer"), .init("minimum", .integer(range.lowerBound)), .init("maximum", .integer(range.upperBound))],
            read: { key, reader in reader.int(key.node, field: key.field, range: range, example: key.example) },
            render: { .integer($0) }, yaml: { "\($0)" })
    }
}

extension KeyValueType where Value == Bool {
    /// true or false (yes/no, on/off).
    static var boolean: Self {
        Self(schema: [ref("boolean")], read: { key, reader in reader.bool(key.node, field: key.field) }, render: { .bool($0) }, yaml: { "\($0)" })
    }
}

extension KeyValueType where Value == Double {
    /// A fraction from 0 to 1; above 0 when `aboveZero`.
    static func fraction(aboveZero: Bool = false) -> Self {
        var schema = [ref("fraction")]
        if aboveZero { schema.append(.init("exclusiveMinimum", 0)) }
        return Self(
            schema: schema,
            read: { key, reader in
                guard let value = reader.rate(key.node, field: key.field) else { return nil }
                guard !aboveZero || value > 0 else {
                    reader.issue(key.node, field: key.field, problem: "must be above 0", fix: "write a fraction above 0, e.g. `\(key.example)`")
                    return nil
                }
                return value
            },
            render: { $0 == $0.rounded() ? .integer(Int($0)) : .number($0) }, yaml: { "\($0)" })
    }
}

extension KeyValueType where Value == String {
    /// Any scalar, read as text; the empty text when left empty.
    static var text: Self {
        Self(
            schema: [ref("optionalText")],
            read: { key, reader in reader.string(key.node, field: key.field, required: false, parent: key.node, example: key.example) },
            render: { .string($0) }, yaml: yamlText)
    }

    /// Text of at least one character, e.g. a name.
    static var name: Self {
        Self(
            schema: [ref("text"), .init("minLength", 1)],
            read: { key, reader in reader.string(key.node, field: key.field, required: false, parent: key.node, example: key.example) },
            render: { .string($0) }, yaml: yamlText)
    }

    /// `text` as YAML writes it, quoted when it holds anything but letters, digits and `_ . / -`.
    static func yamlText(_ text: String) -> String {
        let plain = !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || "_./-".contains($0) }
        return plain ? text : "\"\(text)\""
    }
}

extension KeyValueType where Value == [String] {
    /// A comma-separated text, as its trimmed parts (`outFields: "OBJECTID, NAME"`).
    static var commaSeparated: Self {
        Self(
            schema: [ref("optionalText")],
            read: { key, reader in
                reader.string(key.node, field: key.field, required: false, parent: key.node, example: key.example)?
                    .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            },
            render: { .string($0.joined(separator: ",")) }, yaml: { KeyValueType<String>.yamlText($0.joined(separator: ",")) })
    }
}

extension KeyValueType where Value: RawRepresentable & CaseIterable & Sendable, Value.RawValue == String {
    /// One of the cases' names; a near miss is suggested.
    static var choice: Self {
        let names = Value.allCases.map(\.rawValue)
        return Self(
            schema: [.init("anyOf", [["type": "string", "enum": .array(names.map { .string($0) })], ["$ref": "#/$defs/env"]])],
            read: { key, reader in
                guard let text = reader.string(key.node, field: key.field, required: false, parent: key.node, example: key.example) else {
                    return nil
                }
                if let value = Value(rawValue: text) { return value }
                let suggestion = closest(to: text, in: names).map { "did you mean `\($0)`? " } ?? ""
                reader.issue(
                    key.node, field: key.field, problem: "unknown \(key.name) '\(text)'",
                    fix: "\(suggestion)use one of: \(names.joined(separator: ", "))")
                return nil
            },
            render: { .string($0.rawValue) }, yaml: { $0.rawValue })
    }
}

extension KeyValueType where Value == Duration {
    /// A duration with a unit (`30s`, `1m30s`); above 0 unless `allowZero`.
    static func duration(allowZero: Bool = false) -> Self {
        Self(
            schema: [ref(allowZero ? "duration" : "positiveDuration")],
            read: { key, reader in reader.duration(key.node, field: key.field, example: key.example, allowZero: allowZero) },
            render: { .string(DurationText.format($0)) }, yaml: { DurationText.format($0) })
    }
}

extension KeyValueType where Value == Int64 {
    /// A byte count: `512`, `64KB`, `10MB`, `1GB`.
    static var size: Self {
        Self(
            schema: [ref("size")], read: { key, reader in ScenarioParser.readBytes(key.node, field: key.field, &reader) },
            render: { .string(ByteText.format($0)) }, yaml: { ByteText.format($0) })
    }
}

extension KeyValueType where Value == OperationSpec.SizeRange {
    /// A size, or `{ min, max }` for sizes spread evenly between the two.
    static var sizeRange: Self {
        Self(
            schema: [ref("sizeRange")], read: { key, reader in ScenarioParser.readSize(key.node, field: key.field, &reader) },
            render: { range in
                range.min == range.max
                    ? .string(ByteText.format(range.min)) : ["min": .string(ByteText.format(range.min)), "max": .string(ByteText.format(range.max))]
            },
            yaml: { range in
                range.min == range.max ? ByteText.format(range.min) : "{ min: \(ByteText.format(range.min)), max: \(ByteText.format(range.max)) }"
            })
    }
}

/// Byte counts as scenario files write them: the largest unit of KB, MB and GB that divides them.
enum ByteText {
    static func format(_ bytes: Int64) -> String {
        for (unit, factor) in [("GB", Int64(1) << 30), ("MB", 1 << 20), ("KB", 1 << 10)] where bytes >= factor && bytes % factor == 0 {
            return "\(bytes / factor)\(unit)"
        }
        return "\(bytes)"
    }
}
