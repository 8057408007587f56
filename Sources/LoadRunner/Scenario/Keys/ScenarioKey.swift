import Yams

/// One key of a scenario file, declared once: its name, the type of its value (which brings the range), its
/// default, its examples and its description. The reader (``MappingInput/read(_:_:)``), the messages' examples and
/// the key's JSON Schema fragment all come from this declaration, so none of them can drift from the others.
///
/// Keys are declared as static members of `ScenarioKey` (`ScenarioKey<Int>.batchSize`), so readers write
/// `input.read(.batchSize, &reader)`. A key whose value may be absent has an optional `Value` and the default `nil`.
struct ScenarioKey<Value: Sendable>: ScenarioKeyDeclaration {
    let name: String
    /// How the value is read, typed in the schema and written.
    let type: KeyValueType<Value>
    /// The value when the file leaves the key out (or gives a value that is refused, which is also reported).
    let defaultValue: Value
    /// Values shown in the schema's `examples`; the first is the one messages suggest.
    let examples: [Value]
    /// What the key does, for the schema and editors.
    let description: String

    init(_ name: String, _ type: KeyValueType<Value>, default defaultValue: Value, examples: [Value] = [], _ description: String) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.examples = examples
        self.description = description
    }

    /// `name: value`, as a fix suggests writing the key: its first example, else its default.
    var example: String {
        guard let value = examples.first ?? Optional(defaultValue), let text = type.yaml(value) else { return "\(name): …" }
        return "\(name): \(text)"
    }

    /// The key's JSON Schema fragment: description, the value type's members, default and examples.
    var schema: SchemaValue {
        var members = (description.isEmpty ? [] : [SchemaValue.Member("description", .string(description))]) + type.schema
        if let value = type.render(defaultValue) { members.append(.init("default", value)) }
        let rendered = examples.compactMap(type.render)
        if !rendered.isEmpty { members.append(.init("examples", .array(rendered))) }
        return .object(members)
    }

    /// The key's value in `map` (at `path`, empty at the top of the file), the default when it is absent or refused; a refused value is reported.
    func read(_ map: Node.Mapping, path: String, _ reader: inout NodeReader) -> Value {
        guard let node = map[name] else { return defaultValue }
        return type.read(KeyRead(node: node, field: path.isEmpty ? name : "\(path).\(name)", example: example), &reader) ?? defaultValue
    }

    func check(_ input: MappingInput, _ reader: inout NodeReader) { _ = read(input.map, path: input.path, &reader) }

    /// The default as the reader gives it, rendered as the schema renders values.
    var renderedDefault: SchemaValue? { type.render(defaultValue) }
}

extension ScenarioKey {
    /// A key that may be left out with no default: its value is nil then.
    init<Wrapped>(_ name: String, _ type: KeyValueType<Wrapped>, examples: [Wrapped] = [], _ description: String) where Value == Wrapped? {
        self.init(name, .optional(type), default: nil, examples: examples.map { $0 }, description)
    }
}

/// What every key declaration offers without its value's type: the parser's key lists, the schema and the tests
/// that hold the reader to the schema.
protocol ScenarioKeyDeclaration: Sendable {
    var name: String { get }
    var schema: SchemaValue { get }
    /// `name: value`, as a fix suggests writing the key.
    var example: String { get }
    /// Reads the key's value in `input`, only for the problems it reports.
    func check(_ input: MappingInput, _ reader: inout NodeReader)
    /// The default the reader gives, as the schema renders it; nil when there is none.
    var renderedDefault: SchemaValue? { get }
}

/// A key's value in the file, where to point at it and what to suggest.
struct KeyRead {
    let node: Node
    /// The field path, e.g. `scenarios.smoke.batchSize`.
    let field: String
    /// `batchSize: 100`: how a fix suggests writing the key.
    let example: String
    /// The key's name, the last part of the field path.
    var name: String { String(field.split(separator: ".").last ?? Substring(field)) }
}
