/// A single pass over the bytes of an applyEdits answer, for the shape real services send: `addResults`,
/// `updateResults` and `deleteResults` arrays of `{objectId, globalId, success}` objects.
///
/// An answer of 100 adds parsed as a ``JSONValue`` tree costs a dictionary per result before it is walked; the load
/// generator reads one such answer per request. The scan reads the same answer without building the tree, and gives
/// up (`nil`) on anything it does not read exactly as ``ApplyEditsResult/init(json:)`` would: escapes in strings,
/// numbers that are not plain integers, per-edit errors, attachments, malformed JSON. The caller then takes the
/// general path, which also explains what is wrong.
extension ApplyEditsResult {
    package static func scanning(_ bytes: [UInt8]) -> ApplyEditsResult? {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = EditAnswerScanner(bytes: buffer, answer: bytes)
            return scanner.answer()
        }
    }
}

private struct EditAnswerScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    /// The same bytes as an array, whose slices results keep (their GlobalIDs) without copying.
    let answerBytes: [UInt8]
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, answer: [UInt8]) {
        self.bytes = bytes
        self.answerBytes = answer
    }

    mutating func answer() -> ApplyEditsResult? {
        var result = ApplyEditsResult()
        let complete = object { scanner, key in
            if key == "addResults" { return scanner.results().map { result.addResults = $0 } != nil }
            if key == "updateResults" { return scanner.results().map { result.updateResults = $0 } != nil }
            if key == "deleteResults" { return scanner.results().map { result.deleteResults = $0 } != nil }
            if key == "id" {
                guard let id = scanner.optionalInteger() else { return false }
                result.id = id.map { Int($0) }
                return true
            }
            if key == "editMoment" {
                guard let moment = scanner.optionalInteger() else { return false }
                result.editMoment = moment
                return true
            }
            if key == "attachments" || key == "error" { return false }
            return scanner.skipValue()
        }
        skipWhitespace()
        return complete && index == bytes.count ? result : nil
    }

    /// An array of results, or `null` (no results).
    mutating func results() -> [EditResult]? {
        skipWhitespace()
        if literal("null") { return [] }
        guard consume(UInt8(ascii: "[")) else { return nil }
        var results: [EditResult] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return results }
        while true {
            guard let result = result() else { return nil }
            results.append(result)
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "]")) ? results : nil
        }
    }

    mutating func result() -> EditResult? {
        var objectId: Int64?
        var globalId: ArraySlice<UInt8>?
        var success: Bool?
        let complete = object { scanner, key in
            if key == "objectId" {
                guard let value = scanner.optionalInteger() else { return false }
                objectId = value
                return true
            }
            if key == "globalId" {
                scanner.skipWhitespace()
                if scanner.literal("null") {
                    globalId = nil
                    return true
                }
                guard let range = scanner.plainStringRange() else { return false }
                globalId = scanner.answerBytes[range]
                return true
            }
            if key == "success" {
                scanner.skipWhitespace()
                if scanner.literal("true") {
                    success = true
                } else if scanner.literal("false") {
                    success = false
                } else {
                    return false
                }
                return true
            }
            if key == "error" { return false }
            return scanner.skipValue()
        }
        guard complete, let success else { return nil }
        return EditResult(objectId: objectId, globalIdBytes: globalId, success: success)
    }

    /// A member's key as it stands in the answer, compared with the keys the scan knows without making a `String`.
    struct Key {
        let bytes: UnsafeBufferPointer<UInt8>

        static func == (key: Key, text: StaticString) -> Bool {
            key.bytes.count == text.utf8CodeUnitCount
                && key.bytes.elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
    }

    /// Reads `{ "key": value, … }`, handing each key to `member`, which reads the value and says whether it could.
    mutating func object(_ member: (inout EditAnswerScanner, Key) -> Bool) -> Bool {
        skipWhitespace()
        guard consume(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return true }
        while true {
            skipWhitespace()
            guard let key = plainStringRange() else { return false }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")), member(&self, Key(bytes: UnsafeBufferPointer(rebasing: bytes[key]))) else { return false }
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "}"))
        }
    }

    /// An integer, or `.some(nil)` for `null`; `nil` for anything else.
    mutating func optionalInteger() -> Int64?? {
        skipWhitespace()
        if literal("null") { return .some(nil) }
        let start = index
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var value: Int64 = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        // Plain integers only (no fraction or exponent, no leading zero, at most 18 digits so nothing overflows).
        guard digits > 0, digits <= 18, !(digits > 1 && bytes[start + (negative ? 1 : 0)] == UInt8(ascii: "0")) else { return nil }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) { return nil }
        return .some(negative ? -value : value)
    }

    /// Where the text of a string literal without escapes or control characters lies, the quotes left out.
    mutating func plainStringRange() -> Range<Int>? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return start..<(index - 1)
            }
            guard byte != UInt8(ascii: "\\"), byte >= 0x20 else { return nil }
            index += 1
        }
        return nil
    }

    /// Skips a value the answer's type does not keep (strings, numbers, literals, nested arrays and objects),
    /// checking its grammar as strictly as the general parser does.
    mutating func skipValue(depth: Int = 0) -> Bool {
        skipWhitespace()
        guard index < bytes.count, depth < 64 else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return plainStringRange() != nil
        case UInt8(ascii: "{"):
            return object { scanner, _ in scanner.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return true }
            while true {
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                if consume(UInt8(ascii: ",")) { continue }
                return consume(UInt8(ascii: "]"))
            }
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return skipNumber()
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    mutating func skipNumber() -> Bool {
        func digits(_ scanner: inout EditAnswerScanner) -> Int {
            let start = scanner.index
            while scanner.index < scanner.bytes.count, scanner.bytes[scanner.index] >= UInt8(ascii: "0"),
                scanner.bytes[scanner.index] <= UInt8(ascii: "9")
            {
                scanner.index += 1
            }
            return scanner.index - start
        }
        _ = consume(UInt8(ascii: "-"))
        let integerStart = index
        let integerDigits = digits(&self)
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return false }
        if consume(UInt8(ascii: ".")) {
            guard digits(&self) > 0 else { return false }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard digits(&self) > 0 else { return false }
        }
        return true
    }

    mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
        index += count
        return true
    }
}
