/// A small, strict JSON reader that builds ``JSONValue`` trees straight from UTF-8 bytes.
///
/// Edits arrive as JSON text inside form fields; reading them here (rather than through `JSONDecoder` and
/// `JSONValue`'s trial decoding) keeps the per-edit cost of a 1000-feature applyEdits low, and gives a byte
/// offset for malformed input. Integers that fit in `Int64` stay integers; other numbers become doubles.
package enum JSONReader {
    /// Deepest nesting accepted, so hostile input cannot exhaust the stack.
    package static let maximumDepth = 128

    /// Why a text is not JSON.
    package struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
        package var reason: String
        package var offset: Int
        package var description: String { "\(reason) at byte \(offset)" }
    }

    /// Parses one JSON value filling the whole of `text` (surrounding white space allowed).
    /// - Throws: ``SyntaxError`` when `text` is not exactly one JSON value.
    package static func parse(_ text: String) throws(SyntaxError) -> JSONValue {
        var copy = text
        return try copy.withUTF8 { bytes in read(bytes) }.get()
    }

    /// Parses one JSON value filling the whole of `bytes` (UTF-8; surrounding white space allowed).
    /// - Throws: ``SyntaxError`` when the bytes are not exactly one JSON value.
    package static func parse(bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer in read(buffer) }.get()
    }

    private static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, SyntaxError> {
        var reader = Reader(bytes: bytes)
        do throws(SyntaxError) {
            reader.skipWhitespace()
            let value = try reader.readValue(depth: 0)
            reader.skipWhitespace()
            guard reader.index == bytes.count else { throw reader.error("unexpected text after the JSON value") }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        func error(_ reason: String) -> SyntaxError { SyntaxError(reason: reason, offset: index) }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        mutating func readValue(depth: Int) throws(SyntaxError) -> JSONValue {
            guard depth < JSONReader.maximumDepth else { throw error("nesting deeper than \(JSONReader.maximumDepth)") }
            guard index < bytes.count else { throw error("unexpected end of JSON") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try readObject(depth: depth)
            case UInt8(ascii: "["): return try readArray(depth: depth)
            case UInt8(ascii: "\""): return .string(try readString())
            case UInt8(ascii: "t"):
                try readLiteral("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try readLiteral("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try readLiteral("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
            default: throw error("unexpected character")
            }
        }

        mutating func readLiteral(_ word: StaticString) throws(SyntaxError) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw error("unexpected end of JSON") }
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
            for offset in 0..<count where bytes[index + offset] != expected[offset] { throw error("invalid literal") }
            index += count
        }

        mutating func readObject(depth: Int) throws(SyntaxError) -> JSONValue {
            index += 1
            // Most objects on the wire are small (edit results, attributes): one allocation instead of regrowing.
            var object = [String: JSONValue](minimumCapacity: 8)
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(object)
            }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
                let key = try readString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
                index += 1
                skipWhitespace()
                object[key] = try readValue(depth: depth + 1)
                skipWhitespace()
                guard index < bytes.count else { throw error("unterminated object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(object)
                } else {
                    throw error("expected ',' or '}'")
                }
            }
        }

        mutating func readArray(depth: Int) throws(SyntaxError) -> JSONValue {
            index += 1
            var array: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(array)
            }
            while true {
                skipWhitespace()
                array.append(try readValue(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw error("unterminated array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(array)
                } else {
                    throw error("expected ',' or ']'")
                }
            }
        }

        mutating func readString() throws(SyntaxError) -> String {
            index += 1  // opening quote
            let start = index
            // Fast path: no escapes.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw error("control character in string") }
                index += 1
            }
            var buffer = Array(bytes[start..<index])
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: buffer, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw error("unterminated string") }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escaped)
                    case UInt8(ascii: "b"): buffer.append(0x08)
                    case UInt8(ascii: "f"): buffer.append(0x0C)
                    case UInt8(ascii: "n"): buffer.append(0x0A)
                    case UInt8(ascii: "r"): buffer.append(0x0D)
                    case UInt8(ascii: "t"): buffer.append(0x09)
                    case UInt8(ascii: "u"): appendScalar(try readUnicodeEscape(), to: &buffer)
                    default: throw error("invalid escape")
                    }
                default:
                    guard byte >= 0x20 else { throw error("control character in string") }
                    buffer.append(byte)
                }
            }
            throw error("unterminated string")
        }

        mutating func readHex4() throws(SyntaxError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw error("invalid \\u escape")
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        mutating func readUnicodeEscape() throws(SyntaxError) -> Unicode.Scalar {
            let first = try readHex4()
            if (0xD800..<0xDC00).contains(first) {
                guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    return "\u{FFFD}"
                }
                index += 2
                let second = try readHex4()
                guard (0xDC00..<0xE000).contains(second) else { return "\u{FFFD}" }
                return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)) ?? "\u{FFFD}"
            }
            return Unicode.Scalar(first) ?? "\u{FFFD}"
        }

        func appendScalar(_ scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
            buffer.append(contentsOf: UTF8.encode(scalar)!)
        }

        mutating func readNumber() throws(SyntaxError) -> JSONValue {
            let start = index
            var isInteger = true
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digitsStart = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digitsStart else { throw error("invalid number") }
            if bytes[digitsStart] == UInt8(ascii: "0"), index - digitsStart > 1 { throw error("leading zero in number") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                let fractionStart = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                guard index > fractionStart else { throw error("invalid number") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                let exponentStart = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                guard index > exponentStart else { throw error("invalid number") }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if isInteger, let integer = Int64(text) { return .int(integer) }
            guard let double = Double(text) else { throw error("invalid number") }
            return .double(double)
        }
    }
}
