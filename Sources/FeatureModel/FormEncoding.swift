/// One named form field, as sent in a query string or an `application/x-www-form-urlencoded` body.
package struct FormField: Sendable, Hashable {
    package var name: String
    package var value: String

    package init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// `application/x-www-form-urlencoded` encoding and decoding (WHATWG URL standard rules).
///
/// Both directions work on UTF-8 bytes in one pass: applyEdits bodies carry tens of kilobytes of JSON, and
/// this sits on the hot path of the load generator and of the local server.
package enum FormEncoding {
    /// Encodes fields as `a=1&b=x%20y`.
    package static func encode(_ fields: [FormField]) -> String {
        String(decoding: encodedBytes(fields), as: UTF8.self)
    }

    /// Encodes fields as the UTF-8 bytes of `a=1&b=x%20y`.
    package static func encodedBytes(_ fields: [FormField]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count * 2 + 2 })
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            appendEscaped(field.name.utf8, to: &out)
            out.append(UInt8(ascii: "="))
            appendEscaped(field.value.utf8, to: &out)
        }
        return out
    }

    /// `value` percent-encoded as a form value (the part after `name=`).
    package static func encodedValue(_ value: String) -> [UInt8] {
        encodedValue(utf8: value.utf8)
    }

    /// The UTF-8 bytes `utf8` percent-encoded as a form value.
    package static func encodedValue(utf8: some Sequence<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(utf8.underestimatedCount * 2)
        appendEscaped(utf8, to: &out)
        return out
    }

    /// Appends `value` percent-encoded as (part of) a form value.
    package static func appendEncodedValue(_ value: String, to out: inout [UInt8]) {
        appendEscaped(value.utf8, to: &out)
    }

    /// Whether `byte` stands for itself in an encoded form value (letters, digits, `-._~`); any other is written `%XX`.
    @inlinable
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
        }
    }

    /// The upper-case hex digit of `nibble` (0–15), as `%XX` escapes are written.
    @inlinable
    package static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }

    /// A form value (the part after `name=`) decoded; bytes that are not UTF-8 once decoded become U+FFFD.
    package static func decodedValue(_ bytes: [UInt8]) -> String {
        String(decoding: unescape(bytes, 0, bytes.count), as: UTF8.self)
    }

    /// Decodes `a=1&b=x+y` into fields, in order. `+` is a space; malformed escapes are kept literally.
    package static func decode(_ text: some StringProtocol) -> [FormField] {
        decode(utf8: Array(text.utf8))
    }

    /// Decodes the UTF-8 bytes of `a=1&b=x+y` into fields, in order. Bytes that are not UTF-8 once
    /// percent-decoded become U+FFFD.
    package static func decode(utf8 bytes: [UInt8]) -> [FormField] {
        decode(utf8: bytes) { String(decoding: $0, as: UTF8.self) }!
    }

    /// A field whose name or value is not UTF-8 once percent-decoded.
    package struct InvalidUTF8: Error, Sendable, Hashable {
        /// The field's name as far as it decodes (invalid bytes as U+FFFD).
        package var name: String
    }

    /// Decodes the UTF-8 bytes of `a=1&b=x+y` into fields, in order, refusing any name or value that is not UTF-8
    /// once percent-decoded (`%FF`, a truncated sequence, an encoded surrogate) instead of replacing its bytes.
    /// - Throws: ``InvalidUTF8`` naming the first such field.
    package static func decodeValidatingUTF8(utf8 bytes: [UInt8]) throws(InvalidUTF8) -> [FormField] {
        var invalid: InvalidUTF8?
        let fields = decode(utf8: bytes) { (slice: ArraySlice<UInt8>) -> String? in
            String(validating: slice, as: UTF8.self)
        } onInvalid: { name in
            invalid = InvalidUTF8(name: name)
        }
        guard let fields else { throw invalid! }
        return fields
    }

    private static func decode(
        utf8 bytes: [UInt8], string: (ArraySlice<UInt8>) -> String?, onInvalid: (String) -> Void = { _ in }
    ) -> [FormField]? {
        var fields: [FormField] = []
        var start = 0
        let end = bytes.count
        while start < end {
            var stop = start
            var equals: Int?
            while stop < end, bytes[stop] != UInt8(ascii: "&") {
                if equals == nil, bytes[stop] == UInt8(ascii: "=") { equals = stop }
                stop += 1
            }
            if stop > start {
                let nameEnd = equals ?? stop
                let nameBytes = unescape(bytes, start, nameEnd)
                let valueBytes = equals.map { unescape(bytes, $0 + 1, stop) } ?? []
                guard let name = string(nameBytes) else {
                    onInvalid(String(decoding: nameBytes, as: UTF8.self))
                    return nil
                }
                guard let value = string(valueBytes) else {
                    onInvalid(name)
                    return nil
                }
                fields.append(FormField(name, value))
            }
            start = stop + 1
        }
        return fields
    }

    /// Percent-encodes everything but unreserved characters.
    package static func escape(_ text: some StringProtocol) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        appendEscaped(text.utf8, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes percent escapes and `+`.
    package static func unescape(_ text: some StringProtocol) -> String {
        let bytes = Array(text.utf8)
        return String(decoding: unescape(bytes, 0, bytes.count), as: UTF8.self)
    }

    private static let unreservedTable: [Bool] = (0..<256).map { isUnreserved(UInt8($0)) }

    private static let hexDigits: [UInt8] = (0..<16).map { hexDigit(UInt8($0)) }

    /// Appends `bytes` percent-encoded. The hot path of every request body: the tables are read once per call (not
    /// once per byte through their lazy initialisers) and the output is written through a buffer, not byte by byte.
    private static func appendEscaped(_ bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { appendEscaped($0, to: &out) }
        if done == nil {
            Array(bytes).withUnsafeBufferPointer { appendEscaped($0, to: &out) }
        }
    }

    private static func appendEscaped(_ input: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard !input.isEmpty else { return }
        let unreserved = unreservedTable
        let hex = hexDigits
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: input.count * 3) { buffer in
            var count = 0
            unreserved.withUnsafeBufferPointer { table in
                hex.withUnsafeBufferPointer { digits in
                    for byte in input {
                        if table[Int(byte)] {
                            buffer[count] = byte
                            count += 1
                        } else {
                            buffer[count] = UInt8(ascii: "%")
                            buffer[count + 1] = digits[Int(byte >> 4)]
                            buffer[count + 2] = digits[Int(byte & 0xF)]
                            count += 3
                        }
                    }
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// The bytes of `bytes[start..<end]` with percent escapes and `+` decoded.
    private static func unescape(_ bytes: [UInt8], _ start: Int, _ end: Int) -> ArraySlice<UInt8> {
        var needsWork = false
        for index in start..<end where bytes[index] == UInt8(ascii: "%") || bytes[index] == UInt8(ascii: "+") {
            needsWork = true
            break
        }
        if !needsWork { return bytes[start..<end] }
        var out: [UInt8] = []
        out.reserveCapacity(end - start)
        var index = start
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < end, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return out[...]
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
