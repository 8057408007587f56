/// A feature or table row: attributes by field name, and a geometry for feature layers.
public struct Feature: Sendable, Hashable, Codable {
    public var attributes: [String: JSONValue]
    public var geometry: Geometry?

    public init(attributes: [String: JSONValue], geometry: Geometry? = nil) {
        self.attributes = attributes
        self.geometry = geometry
    }

    private enum CodingKeys: String, CodingKey { case attributes, geometry }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        attributes = try c.decodeIfPresent([String: JSONValue].self, forKey: .attributes) ?? [:]
        geometry = try c.decodeIfPresent(Geometry.self, forKey: .geometry)
    }

    /// The attribute named `name`, compared case-insensitively as ArcGIS field names are.
    public subscript(attribute name: String) -> JSONValue? {
        if let value = attributes[name] { return value }
        let lowered = name.lowercased()
        return attributes.first { $0.key.lowercased() == lowered }?.value
    }
}

/// Helpers for GlobalID values, which ArcGIS writes as `{8-4-4-4-12}` in upper case.
public enum GlobalID {
    /// The canonical form `{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}` of `text`, or nil when it is not a GUID.
    ///
    /// Braces are optional and case is ignored.
    public static func normalized(_ text: String) -> String? {
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

    /// A new random GlobalID in canonical form.
    public static func make<G: RandomNumberGenerator>(using generator: inout G) -> String {
        let hex = Array("0123456789ABCDEF")
        var digits: [Character] = []
        for index in 0..<32 {
            var nibble = Int(generator.next() & 0xF)
            if index == 12 { nibble = 4 }  // version 4
            if index == 16 { nibble = 8 | (nibble & 0x3) }  // RFC 4122 variant
            digits.append(hex[nibble])
        }
        let s = String(digits)
        func part(_ from: Int, _ count: Int) -> Substring {
            let start = s.index(s.startIndex, offsetBy: from)
            return s[start..<s.index(start, offsetBy: count)]
        }
        return "{\(part(0, 8))-\(part(8, 4))-\(part(12, 4))-\(part(16, 4))-\(part(20, 12))}"
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
