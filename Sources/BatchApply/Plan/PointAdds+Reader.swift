import Foundation

/// The fast path's reader: one pass over a record's bytes, taking only what it reads exactly as the general path does.
extension PointAdds {
    /// What a record holds: its properties (rule, and where the value's token lies) in input order, which rules they
    /// name (true: with a value, false: null), and where the point's coordinates lie.
    struct Found {
        /// The properties, `propertyCount` of them, in storage for one per rule (a record names each rule at most once).
        let properties: UnsafeMutableBufferPointer<(rule: Int, value: Range<Int>)>
        var propertyCount = 0
        /// By rule: ``absent``, ``null`` or ``given``.
        let present: UnsafeMutableBufferPointer<UInt8>
        var x = 0..<0
        var y = 0..<0

        static let absent: UInt8 = 0
        static let null: UInt8 = 1
        static let given: UInt8 = 2

        /// Calls `body` with an empty `Found` for `rules` rules, in storage on the stack (two arrays a record were a
        /// third of the fast path's allocations).
        static func with<Result>(rules: Int, _ body: (inout Found) -> Result) -> Result {
            withUnsafeTemporaryAllocation(of: (rule: Int, value: Range<Int>).self, capacity: max(1, rules)) { properties in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, rules)) { present in
                    present.initialize(repeating: absent)
                    var found = Found(properties: properties, present: present)
                    return body(&found)
                }
            }
        }

        /// The properties found, in input order.
        var found: UnsafeMutableBufferPointer<(rule: Int, value: Range<Int>)>.SubSequence { properties[0..<propertyCount] }
    }

    /// A strict reader of one record, as JSONReader reads it, that gives up (nil) on what it does not take.
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        /// Held by the caller for as long as the reader is used.
        unowned(unsafe) let table: RuleTable
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>, table: RuleTable) {
            self.bytes = bytes
            self.table = table
        }

        /// `{"type": "Feature", "geometry": {"type": "Point", "coordinates": [x, y]}, "properties": {…}}` with its
        /// members in any order, and an `id` allowed.
        mutating func feature(into found: inout Found) -> Bool {
            var sawType = false
            var sawGeometry = false
            var sawProperties = false
            var sawId = false
            guard open() else { return false }
            var first = true
            while let key = nextKey(first: first) {
                first = false
                if matches(key, "type") {
                    guard !sawType, let value = string(), matches(value, "Feature") else { return false }
                    sawType = true
                } else if matches(key, "geometry") {
                    guard !sawGeometry, point(into: &found) else { return false }
                    sawGeometry = true
                } else if matches(key, "properties") {
                    guard !sawProperties, properties(into: &found) else { return false }
                    sawProperties = true
                } else if matches(key, "id") {
                    guard !sawId else { return false }
                    skipWhitespace()
                    if peek() == UInt8(ascii: "\"") {
                        guard string() != nil else { return false }
                    } else {
                        guard number() != nil else { return false }
                    }
                    sawId = true
                } else {
                    return false
                }
            }
            guard closed, sawType, sawGeometry else { return false }
            skipWhitespace()
            return index == bytes.count
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
        mutating func properties(into found: inout Found) -> Bool {
            skipWhitespace()
            if literal("null") { return true }
            guard open() else { return false }
            var first = true
            while let key = nextKey(first: first) {
                first = false
                let entries = table.entries
                guard let rule = entries.indices.first(where: { matches(key, table.text(entries[$0].name)) }), found.present[rule] == Found.absent
                else { return false }
                skipWhitespace()
                let start = index
                if literal("null") {
                    guard entries[rule].nullable else { return false }
                    found.present[rule] = Found.null
                } else {
                    guard value(for: entries[rule], rule: rule) else { return false }
                    found.present[rule] = Found.given
                }
                found.properties[found.propertyCount] = (rule, start..<index)
                found.propertyCount += 1
            }
            return closed
        }

        /// A value rule `index` (`entry`) takes as it stands.
        mutating func value(for entry: RuleTable.Entry, rule index: Int) -> Bool {
            switch entry.kind {
            case .text(let limit):
                guard let text = string() else { return false }
                if let limit, limit > 0, text.count > limit { return false }
                if entry.hasCodes, let codes = table.rules[index].textCodes, !codes.contains(Array(bytes[text])) { return false }
                return true
            case .integer(let range):
                guard let token = number(), let value = Self.integer(bytes[token]) else { return false }
                if let range, !range.contains(value) { return false }
                if entry.hasCodes, let codes = table.rules[index].integerCodes, !codes.contains(value) { return false }
                if let bounds = entry.range, !bounds.contains(Double(value)) { return false }
                return true
            case .real:
                guard let token = number() else { return false }
                if let bounds = entry.range {
                    let value =
                        Self.integer(bytes[token]).map(Double.init)
                        ?? Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[token]), as: UTF8.self))
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

        func matches(_ range: Range<Int>, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
            range.count == name.count && (range.isEmpty || memcmp(bytes.baseAddress! + range.lowerBound, name.baseAddress!, range.count) == 0)
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
