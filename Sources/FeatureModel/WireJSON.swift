package import Foundation

/// JSON encoding and decoding as the ArcGIS REST API writes it.
package enum WireJSON {
    /// Encodes `value` as compact JSON text.
    /// - Throws: `EncodingError` when a value cannot be encoded (a non-finite double).
    package static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// Encodes `value` as compact JSON text in a string.
    /// - Throws: `EncodingError` when a value cannot be encoded.
    package static func string(_ value: some Encodable) throws -> String {
        String(decoding: try encode(value), as: UTF8.self)
    }

    /// Decodes a `T` from JSON bytes.
    /// - Throws: `DecodingError` when the bytes are not JSON of that shape.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }

    /// Decodes a `T` from JSON bytes.
    /// - Throws: `DecodingError` when the bytes are not JSON of that shape.
    package static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try JSONDecoder().decode(type, from: Data(bytes))
    }

    /// Decodes a `T` from JSON text.
    /// - Throws: `DecodingError` when the text is not JSON of that shape.
    package static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    /// `"error"`, made once: the check runs on every response.
    private static let errorKey: [UInt8] = Array(#""error""#.utf8)

    /// The ArcGIS error envelope in `bytes`, if the body is one.
    ///
    /// ArcGIS sends errors with HTTP 200, so every answer must be checked with this before it is decoded as a result.
    package static func error(in bytes: [UInt8]) -> ArcGISError? {
        // Cheap pre-check: an error body starts with `{"error"` (after optional white space).
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
            bytes[first] == UInt8(ascii: "{")
        else { return nil }
        // A byte search of the first 32 bytes: a String search here went through Foundation on every response.
        let needle = errorKey
        let end = min(bytes.count, first + 32)
        var found = false
        var index = first
        while index + needle.count <= end {
            if bytes[index] == needle[0] && bytes[index..<(index + needle.count)].elementsEqual(needle) {
                found = true
                break
            }
            index += 1
        }
        guard found else { return nil }
        return try? decode(ErrorEnvelope.self, from: bytes).error
    }
}
