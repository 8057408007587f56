public import FeatureModel

/// The text of a GeoJSON Feature record and the coordinate system its coordinates are in, kept beside its deferred
/// decoding so the planner can take its fast path (``PointAdds``).
public struct GeoJSONText: Sendable {
    public var bytes: [UInt8]
    public var position: InputPosition
    public var wkid: Int

    public init(bytes: [UInt8], position: InputPosition, wkid: Int) {
        self.bytes = bytes
        self.position = position
        self.wkid = wkid
    }
}

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
/// layer without subtypes. Pure.
struct PointAdds: Sendable {
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
    let rules: [Rule]
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
        guard info.geometryType == .point, let globalIdField = info.globalIdField, info.typeIdField == nil, (info.types ?? []).isEmpty else { return nil }
        guard globalIdField.utf8.allSatisfy(Self.isPlainText) else { return nil }
        var rules: [Rule] = []
        var required: [Int] = []
        // Names the general path takes as keys (and so leaves out of an add's attributes), in any case.
        let keyNames = ApplyPlanner.keyNames(of: info)
        for field in info.fields {
            let isKey = field.type == .oid || field.type == .globalID || keyNames.contains { $0.caseInsensitiveEquals(field.name) }
            // As DomainValidator asks of an add: by type only, so a required field named like a key (an OBJECTID
            // integer beside an FID object-ID field), which the general path takes out as a key, is still required.
            let mustGive = field.type != .oid && field.type != .globalID && field.isEditable && !field.isNullable && (field.defaultValue ?? .null).isNull
            guard !isKey, field.isEditable, let rule = Self.rule(for: field) else {
                if mustGive { return nil }
                continue
            }
            if mustGive { required.append(rules.count) }
            rules.append(rule)
        }
        layer = id
        self.rules = rules
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
            let range: ClosedRange<Int64>? =
                switch field.type {
                case .smallInteger: Int64(Int16.min)...Int64(Int16.max)
                case .integer: Int64(Int32.min)...Int64(Int32.max)
                default: nil
                }
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
    func plan(_ text: GeoJSONText) -> PlannedEdit? {
        text.bytes.withUnsafeBufferPointer { bytes -> PlannedEdit? in
            var reader = Reader(bytes: bytes)
            guard let found = reader.feature(rules: rules) else { return nil }
            for index in required where found.present[index] != .some(true) { return nil }
            let source = RecordText.string(text.bytes)
            // A record the fast path reads is ASCII throughout, so its bytes are its text's.
            let globalId = DerivedGlobalID.make(layer: layer, position: text.position.index, utf8: bytes)
            // Written straight into the string's storage, of the payload's exact length (a string keeps the capacity
            // it is made with): the keys and values of the fields the record names, the GlobalID, the coordinates and
            // the fixed parts.
            let wkid = String(text.wkid)
            var length = Self.fixedPayloadBytes + globalIdKey.count + globalId.utf8.count + found.x.count + found.y.count + wkid.utf8.count
            for (rule, value) in found.properties { length += rules[rule].key.count + value.count + 1 }
            let payload = String(unsafeUninitializedCapacity: length) { buffer in
                var count = 0
                func append(_ part: some Collection<UInt8>) {
                    count = UnsafeMutableBufferPointer(rebasing: buffer[count...]).initialize(fromContentsOf: part) + count
                }
                append(#"{"attributes":{"#.utf8)
                for (rule, value) in found.properties {
                    append(rules[rule].key)
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

    /// What a record holds: its properties (rule, and where the value's token lies) in input order, which rules they
    /// name (true: with a value, false: null), and where the point's coordinates lie.
    struct Found {
        var properties: [(rule: Int, value: Range<Int>)] = []
        var present: [Bool?]
        var x = 0..<0
        var y = 0..<0
    }

    /// A strict reader of one record, as JSONReader reads it, that gives up (nil) on what it does not take.
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        /// `{"type": "Feature", "geometry": {"type": "Point", "coordinates": [x, y]}, "properties": {…}}` with its
        /// members in any order, and an `id` allowed.
        mutating func feature(rules: [Rule]) -> Found? {
            var found = Found(present: Array(repeating: nil, count: rules.count))
            found.properties.reserveCapacity(rules.count)
            var sawType = false
            var sawGeometry = false
            var sawProperties = false
            var sawId = false
            guard open() else { return nil }
            var first = true
            while let key = nextKey(first: first) {
                first = false
                if matches(key, "type") {
                    guard !sawType, let value = string(), matches(value, "Feature") else { return nil }
                    sawType = true
                } else if matches(key, "geometry") {
                    guard !sawGeometry, point(into: &found) else { return nil }
                    sawGeometry = true
                } else if matches(key, "properties") {
                    guard !sawProperties, properties(rules: rules, into: &found) else { return nil }
                    sawProperties = true
                } else if matches(key, "id") {
                    guard !sawId else { return nil }
                    skipWhitespace()
                    if peek() == UInt8(ascii: "\"") {
                        guard string() != nil else { return nil }
                    } else {
                        guard number() != nil else { return nil }
                    }
                    sawId = true
                } else {
                    return nil
                }
            }
            guard closed, sawType, sawGeometry else { return nil }
            skipWhitespace()
            return index == bytes.count ? found : nil
        }

        /// `{"type": "Point", "coordinates": [x, y]}`, members in any order.
        mutating func point(into found: inout Found) -> Bool {
            guard open() else { return false }
            var sawType = false
            var sawCoordinates = false
            var first = true
            while let key = nextKey(first: first) {
                first = false
                if matches(key, "type") {
                    guard !sawType, let value = string(), matches(value, "Point") else { return false }
                    sawType = true
                } else if matches(key, "coordinates") {
                    guard !sawCoordinates, consume(UInt8(ascii: "[")), let x = number(), consume(UInt8(ascii: ",")), let y = number(),
                        consume(UInt8(ascii: "]"))
                    else { return false }
                    found.x = x
                    found.y = y
                    sawCoordinates = true
                } else {
                    return false
                }
            }
            return closed && sawType && sawCoordinates
        }

        /// `{…}` or `null`: each property names a rule's field exactly, once, with a value the rule takes.
        mutating func properties(rules: [Rule], into found: inout Found) -> Bool {
            skipWhitespace()
            if literal("null") { return true }
            guard open() else { return false }
            var first = true
            while let key = nextKey(first: first) {
                first = false
                guard let rule = rules.firstIndex(where: { matches(key, $0.name) }), found.present[rule] == nil else { return false }
                skipWhitespace()
                let start = index
                if literal("null") {
                    guard rules[rule].nullable else { return false }
                    found.present[rule] = false
                } else {
                    guard value(for: rules[rule]) else { return false }
                    found.present[rule] = true
                }
                found.properties.append((rule, start..<index))
            }
            return closed
        }

        /// A value `rule` takes as it stands.
        mutating func value(for rule: Rule) -> Bool {
            switch rule.kind {
            case .text(let limit):
                guard let text = string() else { return false }
                if let limit, limit > 0, text.count > limit { return false }
                if let codes = rule.textCodes, !codes.contains(Array(bytes[text])) { return false }
                return true
            case .integer(let range):
                guard let token = number(), let value = Self.integer(bytes[token]) else { return false }
                if let range, !range.contains(value) { return false }
                if let codes = rule.integerCodes, !codes.contains(value) { return false }
                if let bounds = rule.range, !bounds.contains(Double(value)) { return false }
                return true
            case .real:
                guard let token = number() else { return false }
                if let bounds = rule.range {
                    let value = Self.integer(bytes[token]).map(Double.init) ?? Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[token]), as: UTF8.self))
                    guard let value, bounds.contains(value) else { return false }
                }
                return true
            }
        }

        /// A plain whole number (no fraction), at most 18 digits.
        static func integer(_ token: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
            var value: Int64 = 0
            var negative = false
            var digits = 0
            for byte in token {
                if byte == UInt8(ascii: "-") {
                    negative = true
                    continue
                }
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 18 else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
                digits += 1
            }
            return negative ? -value : value
        }

        /// The key of the object's next member, with its colon read; nil at the object's end (then `closed` is true)
        /// or on anything else (then false).
        private(set) var closed = false

        mutating func nextKey(first: Bool) -> Range<Int>? {
            closed = false
            skipWhitespace()
            if first, consume(UInt8(ascii: "}")) {
                closed = true
                return nil
            }
            if !first {
                if consume(UInt8(ascii: "}")) {
                    closed = true
                    return nil
                }
                guard consume(UInt8(ascii: ",")) else { return nil }
            }
            guard let key = string(), consume(UInt8(ascii: ":")) else { return nil }
            return key
        }

        mutating func open() -> Bool { consume(UInt8(ascii: "{")) }

        /// A string of plain text (printable ASCII, no escapes): where its text lies, quotes left out.
        mutating func string() -> Range<Int>? {
            guard consume(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return start..<(index - 1)
                }
                guard PointAdds.isPlainText(byte) else { return nil }
                index += 1
            }
            return nil
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?`, at most 24 characters: where it lies.
        mutating func number() -> Range<Int>? {
            skipWhitespace()
            let start = index
            if peek() == UInt8(ascii: "-") { index += 1 }
            let digits = index
            while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
            guard index > digits, !(bytes[digits] == UInt8(ascii: "0") && index - digits > 1) else { return nil }
            if peek() == UInt8(ascii: ".") {
                index += 1
                let fraction = index
                while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
                guard index > fraction else { return nil }
            }
            // An exponent, or anything else glued on, is for the general path.
            if let byte = peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return nil }
            return index - start <= 24 ? start..<index : nil
        }

        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
            index += count
            return true
        }

        func matches(_ range: Range<Int>, _ text: StaticString) -> Bool {
            range.count == text.utf8CodeUnitCount
                && bytes[range].elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        func matches(_ range: Range<Int>, _ name: [UInt8]) -> Bool {
            range.count == name.count && bytes[range].elementsEqual(name)
        }

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func consume(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard peek() == byte else { return false }
            index += 1
            return true
        }

        mutating func skipWhitespace() {
            while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }
    }
}
