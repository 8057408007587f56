/// A feature or table row: attributes by field name, and a geometry for feature layers.
public struct Feature: Sendable, Hashable, Codable {
    /// The attribute values by field name.
    public var attributes: [String: JSONValue]
    /// The shape; nil for table rows and for queries without geometry.
    public var geometry: Geometry?

    /// A feature with `attributes` and an optional `geometry`.
    public init(attributes: [String: JSONValue], geometry: Geometry? = nil) {
        self.attributes = attributes
        self.geometry = geometry
    }

    private enum CodingKeys: String, CodingKey { case attributes, geometry }

    /// Decodes a feature from its JSON object; missing `attributes` read as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        attributes = try c.decodeIfPresent([String: JSONValue].self, forKey: .attributes) ?? [:]
        geometry = try c.decodeIfPresent(Geometry.self, forKey: .geometry)
    }

    /// The attribute named `name`, compared case-insensitively as ArcGIS field names are.
    public subscript(attribute name: String) -> JSONValue? {
        if let value = attributes[name] { return value }
        return attributes.first { $0.key.caseInsensitiveEquals(name) }?.value
    }
}

/// Helpers for GlobalID values, which ArcGIS writes as `{8-4-4-4-12}` in upper case.
public enum GlobalID {
    /// The canonical form `{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}` of `text`, or nil when it is not a GUID.
    ///
    /// Braces are optional and case is ignored.
    public static func normalized(_ text: String) -> String? {
        if isCanonical(text) { return text }
        var body = Substring(text.trimmingSpaces())
        if body.hasPrefix("{") && body.hasSuffix("}") && body.count >= 2 {
            body = body.dropFirst().dropLast()
        }
        let upper = body.uppercased()
        let groups = upper.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12],
            upper.allSatisfy({ $0 == "-" || $0.isHexDigit })
        else { return nil }
        return "{" + upper + "}"
    }

    /// The 128 bits `high` (first) and `low` in canonical form, `{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}`, written byte by
    /// byte: formatting through Characters costs more than making the bits when millions of adds are planned.
    package static func canonical(high: UInt64, low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 38) { buffer in
            let hex: StaticString = "0123456789ABCDEF"
            let digits = hex.utf8Start
            buffer[0] = UInt8(ascii: "{")
            var at = 1
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                    buffer[at] = UInt8(ascii: "-")
                    at += 1
                }
                let word = nibble < 16 ? high : low
                buffer[at] = digits[Int((word >> UInt64(60 - 4 * (nibble % 16))) & 0xF)]
                at += 1
            }
            buffer[at] = UInt8(ascii: "}")
            return at + 1
        }
    }

    /// Whether `text` is already in canonical form, checked byte by byte: most GlobalIDs are, and this spares them
    /// the upper-casing and splitting ``normalized(_:)`` does otherwise.
    static func isCanonical(_ text: String) -> Bool {
        var utf8 = text
        return utf8.withUTF8 { bytes in
            guard bytes.count == 38, bytes[0] == UInt8(ascii: "{"), bytes[37] == UInt8(ascii: "}") else { return false }
            for index in 1..<37 {
                let byte = bytes[index]
                if index == 9 || index == 14 || index == 19 || index == 24 {
                    guard byte == UInt8(ascii: "-") else { return false }
                } else {
                    guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte) else {
                        return false
                    }
                }
            }
            return true
        }
    }

    /// A new random GlobalID in canonical form.
    package static func make<G: RandomNumberGenerator>(using generator: inout G) -> String {
        var bytes: [UInt8] = []
        append(using: &generator, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends a new random GlobalID in canonical form (`{8-4-4-4-12}`, upper-case hex, version 4) as UTF-8: the
    /// same GlobalID ``make(using:)`` returns for the same generator state.
    package static func append<G: RandomNumberGenerator>(using generator: inout G, to bytes: inout [UInt8]) {
        let hex: StaticString = "0123456789ABCDEF"
        bytes.append(UInt8(ascii: "{"))
        for index in 0..<32 {
            var nibble = Int(generator.next() & 0xF)
            if index == 12 { nibble = 4 }  // version 4
            if index == 16 { nibble = 8 | (nibble & 0x3) }  // RFC 4122 variant
            if index == 8 || index == 12 || index == 16 || index == 20 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(hex.utf8Start[nibble])
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// A new random GlobalID from the system generator.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return make(using: &generator)
    }
}

extension String {
    func trimmingSpaces() -> Substring {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return slice
    }
}
