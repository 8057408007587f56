public import FeatureModel

/// One value of a contingency: what a field of a field group may hold in that combination.
public enum ContingentFieldValue: Sendable, Hashable, CustomStringConvertible {
    /// Any value of the field's domain, null included.
    case any
    /// Null only.
    case null
    /// Exactly this code (a string code already looked up in the `stringDicts`).
    case code(JSONValue)
    /// A number in `minValue...maxValue` (a sub-range of a range domain).
    case range(minValue: Double, maxValue: Double)

    /// Whether `value` matches.
    public func matches(_ value: JSONValue) -> Bool {
        switch self {
        case .any: true
        case .null: value.isNull
        case .code(let code): Self.equal(code, value)
        case .range(let low, let high): value.doubleValue.map { $0 >= low && $0 <= high } ?? false
        }
    }

    /// The value in short: `any`, `null`, the code, or `low…high` for a range.
    public var description: String {
        switch self {
        case .any: "any"
        case .null: "null"
        case .code(let code): code.description
        case .range(let low, let high): "\(low)…\(high)"
        }
    }

    /// Codes compare as numbers when both are numeric (`1` equals `1.0`), otherwise exactly.
    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = a.doubleValue, let y = b.doubleValue { return x == y }
        return a == b
    }
}

/// A layer's contingent values, read from `…/<id>/contingentValues` (or one layer of `queryContingentValues`):
/// its field groups, each with its fields in contingency order and every valid combination.
///
/// Both shapes of arcgis-rest.md §7 are read: field groups with `subTypes` (each subtype with its `domains` and
/// `contingentValues`), and field groups that carry `fields`, `domains` and `contingentValues` themselves. Value
/// types index `typeCodes` (`Unknown, Any, Null, Code, Range`); `values` are consumed left to right, one per Code
/// and two per Range; a string-coded domain's code is an index into its `stringDicts` entries.
///
/// In the `subTypes` shape the field order comes from the group's (or subtype's) `fields` list when it has one;
/// without it the order of a JSON object's keys is unknown here, so the fields are taken in name order — a service
/// that relies on key order needs `fields` to be read correctly.
public struct ContingentValuesDefinition: Sendable, Hashable {
    /// A field group for one subtype (or for all features when ``subtypeCode`` is nil).
    public struct FieldGroup: Sendable, Hashable {
        /// The field group's name.
        public var name: String
        /// Whether a miss is an error (true) or a warning (false).
        public var isRestrictive: Bool
        /// The fields, in the order of each contingency's values.
        public var fields: [String]
        /// The subtype code the group applies to; nil for every feature.
        public var subtypeCode: JSONValue?
        /// Every valid combination; each has one value per field.
        public var contingencies: [[ContingentFieldValue]]

        /// A field group.
        package init(name: String, isRestrictive: Bool, fields: [String], subtypeCode: JSONValue? = nil, contingencies: [[ContingentFieldValue]]) {
            self.name = name
            self.isRestrictive = isRestrictive
            self.fields = fields
            self.subtypeCode = subtypeCode
            self.contingencies = contingencies
        }
    }

    /// The field groups (one entry per group and subtype in the `subTypes` shape).
    public var fieldGroups: [FieldGroup]

    /// A definition.
    package init(fieldGroups: [FieldGroup]) {
        self.fieldGroups = fieldGroups
    }

    /// Why a contingent-values document could not be read.
    package struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// Where and what, e.g. `fieldGroups[1].contingentValues[3]: 2 types but 3 fields`.
        package var description: String
    }

    /// Reads a layer's contingent-values answer, or the `layerID` entry of a service-level one.
    /// - Parameters:
    ///   - json: The parsed answer.
    ///   - layerID: For a service-level answer (`contingentValuesDefinition.layers`), the layer to read.
    /// - Throws: ``ParseError`` naming the first member of the wrong shape.
    package init(json: JSONValue, layerID: Int? = nil) throws(ParseError) {
        guard case .object(let root) = json else { throw ParseError(description: "expected a JSON object") }
        let typeCodes = (root["typeCodes"]?.arrayValue ?? []).compactMap(\.stringValue)
        var dictionaries: [String: [String]] = [:]
        for entry in root["stringDicts"]?.arrayValue ?? [] {
            guard let domain = entry.member("domain")?.stringValue else { continue }
            dictionaries[domain] = (entry.member("entries")?.arrayValue ?? []).compactMap(\.stringValue)
        }
        let definition = root["contingentValuesDefinition"] ?? .object([:])
        var groups = definition.member("fieldGroups")?.arrayValue
        if groups == nil, let layers = definition.member("layers")?.arrayValue {
            let layer = layers.first { layerID == nil || $0.member("layerID")?.intValue == layerID.map(Int64.init) }
            groups = layer?.member("fieldGroups")?.arrayValue ?? []
        }
        let reader = Reader(typeCodes: typeCodes.isEmpty ? ContingentValuesResponse.standardTypeCodes : typeCodes, dictionaries: dictionaries)
        var parsed: [FieldGroup] = []
        for (index, group) in (groups ?? []).enumerated() {
            parsed += try reader.groups(group, label: "fieldGroups[\(index)]")
        }
        self.fieldGroups = parsed
    }

    /// Turns the wire encoding of contingencies into ``ContingentFieldValue``s.
    private struct Reader {
        let typeCodes: [String]
        let dictionaries: [String: [String]]

        func groups(_ group: JSONValue, label: String) throws(ParseError) -> [FieldGroup] {
            guard let name = group.member("name")?.stringValue else { throw ParseError(description: "\(label): no name") }
            let restrictive = group.member("restrictive")?.boolValue ?? false
            let groupFields = group.member("fields")?.arrayValue?.compactMap(\.stringValue)
            if let subtypes = group.member("subTypes")?.arrayValue {
                var result: [FieldGroup] = []
                for (index, subtype) in subtypes.enumerated() {
                    let domains = Self.domains(subtype.member("domains"))
                    let fields = subtype.member("fields")?.arrayValue?.compactMap(\.stringValue) ?? groupFields ?? domains.keys.sorted()
                    let contingencies = try self.contingencies(
                        subtype.member("contingentValues"), fields: fields, domains: domains, label: "\(label).subTypes[\(index)]")
                    result.append(
                        FieldGroup(
                            name: name, isRestrictive: restrictive, fields: fields, subtypeCode: subtype.member("code"), contingencies: contingencies)
                    )
                }
                return result
            }
            let domains = Self.domains(group.member("domains"))
            let fields = groupFields ?? domains.keys.sorted()
            let contingencies = try self.contingencies(group.member("contingentValues"), fields: fields, domains: domains, label: label)
            return [FieldGroup(name: name, isRestrictive: restrictive, fields: fields, contingencies: contingencies)]
        }

        private static func domains(_ value: JSONValue?) -> [String: String] {
            guard case .object(let members)? = value else { return [:] }
            return members.compactMapValues(\.stringValue)
        }

        private func contingencies(
            _ value: JSONValue?, fields: [String], domains: [String: String], label: String
        ) throws(ParseError) -> [[ContingentFieldValue]] {
            var result: [[ContingentFieldValue]] = []
            for (index, contingency) in (value?.arrayValue ?? []).enumerated() {
                let here = "\(label).contingentValues[\(index)]"
                let types = (contingency.member("types")?.arrayValue ?? []).compactMap(\.intValue)
                let values = contingency.member("values")?.arrayValue ?? []
                guard types.count == fields.count else {
                    throw ParseError(description: "\(here): \(types.count) types but \(fields.count) fields")
                }
                var cursor = 0
                var row: [ContingentFieldValue] = []
                for (position, type) in types.enumerated() {
                    let typeName = Int(type) < typeCodes.count && type >= 0 ? typeCodes[Int(type)] : "Unknown"
                    func next() throws(ParseError) -> JSONValue {
                        guard cursor < values.count else { throw ParseError(description: "\(here): too few values") }
                        defer { cursor += 1 }
                        return values[cursor]
                    }
                    switch typeName.lowercased() {
                    case "any": row.append(.any)
                    case "null": row.append(.null)
                    case "code":
                        let raw = try next()
                        if let domain = domains[fields[position]], let entries = dictionaries[domain], let entry = raw.intValue,
                            entries.indices.contains(Int(entry))
                        {
                            row.append(.code(.string(entries[Int(entry)])))
                        } else {
                            row.append(.code(raw))
                        }
                    case "range":
                        guard let low = try next().doubleValue, let high = try next().doubleValue else {
                            throw ParseError(description: "\(here): a range needs two numbers")
                        }
                        row.append(.range(minValue: low, maxValue: high))
                    default: throw ParseError(description: "\(here): unknown value type \(type)")
                    }
                }
                result.append(row)
            }
            return result
        }
    }
}

extension JSONValue {
    /// The elements, when the value is an array.
    fileprivate var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The member `name`, when the value is an object.
    fileprivate func member(_ name: String) -> JSONValue? {
        if case .object(let members) = self { return members[name] }
        return nil
    }
}
