import FeatureModel

/// The planner's fast path for the commonest input: GeoJSON point features added to a point layer, their properties
/// already named and typed as the layer's fields.
///
/// The general path parses each record into a JSON tree, converts it into a ``Feature`` (a dictionary of attributes),
/// fits that to the layer, checks domains, and writes the add's Esri JSON: about 7 µs of CPU per record, most of a
/// streamed apply's own work. Here one pass over the record's bytes checks what the general path would and writes the
/// payload from the record's own tokens. It takes only records it reads exactly as the general path does and finds
/// valid; for anything else (an escape in a string, a property that is not a field of that exact name, a value to
/// convert, a coded value's name, a null where none is allowed, an exponent, a missing required field, any problem)
/// it answers nil and the record takes the general path, which also says what is wrong. A test runs both paths over
/// the same records and compares the planned edits.
///
/// Used only where the general path has nothing more to do for an add: no kind field, related records or files, and a
/// layer without subtypes. Pure. An object, so that each record's use of it retains one reference, not each of its
/// arrays: the checking threads share it.
final class PointAdds: Sendable {
    /// How a property's value is checked.
    enum Kind: Sendable {
        /// Text of at most `limit` characters (no limit when nil or 0).
        case text(limit: Int?)
        /// A whole number in `range` (nil: any 64-bit one).
        case integer(range: ClosedRange<Int64>?)
        /// Any number.
        case real
    }

    /// One field a property may name, and how its value is checked.
    final class Rule: Sendable {
        let name: [UInt8]
        /// `"name":`
        let key: [UInt8]
        let kind: Kind
        let nullable: Bool
        /// A coded-value domain's codes (whole numbers, or texts as UTF-8), nil without one.
        let integerCodes: Set<Int64>?
        let textCodes: Set<[UInt8]>?
        /// A range domain's bounds, nil without one.
        let range: ClosedRange<Double>?

        init(
            name: [UInt8], kind: Kind, nullable: Bool, integerCodes: Set<Int64>? = nil, textCodes: Set<[UInt8]>? = nil,
            range: ClosedRange<Double>? = nil
        ) {
            self.name = name
            key = [UInt8(ascii: "\"")] + name + Array("\":".utf8)
            self.kind = kind
            self.nullable = nullable
            self.integerCodes = integerCodes
            self.textCodes = textCodes
            self.range = range
        }
    }

    let layer: Int
    /// The rules, one per field a property may name, as the reader reads them.
    let table: RuleTable
    /// Rules of fields an add must give a value (not nullable, editable, no default).
    let required: [Int]
    /// `"GlobalID":"`
    let globalIdKey: [UInt8]
    /// The bytes of a payload's fixed parts: `{"attributes":{`, `"},"geometry":{"x":`, `,"y":`,
    /// `,"spatialReference":{"wkid":` and `}}}`.
    static let fixedPayloadBytes = 15 + 19 + 5 + 28 + 3

    /// The fast path for adds to `info` (layer `id`), or nil when the layer is not one it serves: not points, no
    /// GlobalID field, subtypes, or a required field whose values it cannot check.
    init?(layer info: LayerInfo, id: Int) {
        guard info.geometryType == .point, let globalIdField = info.globalIdField, info.typeIdField == nil, (info.types ?? []).isEmpty else {
            return nil
        }
        guard globalIdField.utf8.allSatisfy(Self.isPlainText) else { return nil }
        var rules: [Rule] = []
        var required: [Int] = []
        // Names the general path takes as keys (and so leaves out of an add's attributes), in any case.
        let keyNames = ApplyPlanner.keyNames(of: info)
        for field in info.fields {
            let isKey = field.type == .oid || field.type == .globalID || keyNames.contains { $0.caseInsensitiveEquals(field.name) }
            // As DomainValidator asks of an add: by type only, so a required field named like a key (an OBJECTID
            // integer beside an FID object-ID field), which the general path takes out as a key, is still required.
            let mustGive =
                field.type != .oid && field.type != .globalID && field.isEditable && !field.isNullable && (field.defaultValue ?? .null).isNull
            guard !isKey, field.isEditable, let rule = Self.rule(for: field) else {
                if mustGive { return nil }
                continue
            }
            if mustGive { required.append(rules.count) }
            rules.append(rule)
        }
        layer = id
        table = RuleTable(rules)
        self.required = required
        globalIdKey = [UInt8(ascii: "\"")] + Array(globalIdField.utf8) + Array("\":\"".utf8)
    }

    /// How a field's values are checked, or nil when the fast path leaves its values to the general path.
    static func rule(for field: Field) -> Rule? {
        let name = Array(field.name.utf8)
        guard !name.isEmpty, name.allSatisfy(isPlainText) else { return nil }
        let nullable = field.isNullable
        switch field.type {
        case .string:
            switch field.domain {
            case nil: return Rule(name: name, kind: .text(limit: field.length), nullable: nullable)
            case .codedValue(_, let codes)?:
                var texts: Set<[UInt8]> = []
                for code in codes {
                    guard let text = code.code.stringValue else { return nil }
                    texts.insert(Array(text.utf8))
                }
                return Rule(name: name, kind: .text(limit: field.length), nullable: nullable, textCodes: texts)
            case .range?: return nil
            }
        case .smallInteger, .integer, .bigInteger, .date:
            let range = field.type.integerRange
            switch field.domain {
            case nil: return Rule(name: name, kind: .integer(range: range), nullable: nullable)
            case .codedValue(_, let codes)?:
                var integers: Set<Int64> = []
                for code in codes {
                    guard case .int(let value) = code.code else { return nil }
                    integers.insert(value)
                }
                return Rule(name: name, kind: .integer(range: range), nullable: nullable, integerCodes: integers)
            case .range(_, let low, let high)?:
                guard low <= high else { return nil }
                return Rule(name: name, kind: .integer(range: range), nullable: nullable, range: low...high)
            }
        case .single, .double:
            switch field.domain {
            case nil: return Rule(name: name, kind: .real, nullable: nullable)
            case .range(_, let low, let high)?:
                guard low <= high else { return nil }
                return Rule(name: name, kind: .real, nullable: nullable, range: low...high)
            case .codedValue?: return nil
            }
        default:
            return nil
        }
    }

    /// Printable ASCII that JSON writes as it is: what a name or a text value may hold here.
    static func isPlainText(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    /// The add of record `text`, planned, or nil when the record is for the general path.
    func plan(_ text: GeoJSONText, scheme: DerivedGlobalID.Scheme) -> PlannedEdit? {
        text.bytes.withUnsafeBufferPointer { bytes -> PlannedEdit? in
            Found.with(rules: table.count) { found in
                var reader = Reader(bytes: bytes, table: table)
                guard reader.feature(into: &found) else { return nil }
                for index in required where found.present[index] != Found.given { return nil }
                return plan(text, bytes: bytes, found: found, scheme: scheme)
            }
        }
    }

    /// The add of record `text` (its bytes `bytes`), read as `found`.
    private func plan(_ text: GeoJSONText, bytes: UnsafeBufferPointer<UInt8>, found: Found, scheme: DerivedGlobalID.Scheme) -> PlannedEdit {
        let source = RecordText.string(text.bytes)
        // A record the fast path reads is ASCII throughout, so its bytes are its text's.
        let globalId = DerivedGlobalID.make(layer: layer, position: text.position.index, utf8: bytes, scheme: scheme)
        // Written straight into the string's storage, of the payload's exact length (a string keeps the capacity
        // it is made with): the keys and values of the fields the record names, the GlobalID, the coordinates and
        // the fixed parts.
        let wkid = String(text.wkid)
        var length = Self.fixedPayloadBytes + globalIdKey.count + globalId.utf8.count + found.x.count + found.y.count + wkid.utf8.count
        let entries = table.entries
        for (rule, value) in found.found { length += entries[rule].key.count + value.count + 1 }
        let payload = String(unsafeUninitializedCapacity: length) { buffer in
            var count = 0
            func append(_ part: some Collection<UInt8>) {
                count = UnsafeMutableBufferPointer(rebasing: buffer[count...]).initialize(fromContentsOf: part) + count
            }
            append(#"{"attributes":{"#.utf8)
            for (rule, value) in found.found {
                append(table.text(entries[rule].key))
                append(UnsafeBufferPointer(rebasing: bytes[value]))
                append(CollectionOfOne(UInt8(ascii: ",")))
            }
            append(globalIdKey)
            append(globalId.utf8)
            append(#""},"geometry":{"x":"#.utf8)
            append(UnsafeBufferPointer(rebasing: bytes[found.x]))
            append(#","y":"#.utf8)
            append(UnsafeBufferPointer(rebasing: bytes[found.y]))
            append(#","spatialReference":{"wkid":"#.utf8)
            append(wkid.utf8)
            append("}}}".utf8)
            assert(count == length, "the payload's length, worked out beforehand")
            return count
        }
        return PlannedEdit(
            position: text.position, kind: .add, layer: layer, globalId: globalId, objectId: nil,
            payload: payload, source: source)
    }
}
