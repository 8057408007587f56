import FeatureModel

/// The generator's fastest path: a batch of adds written straight into the bytes of the request body.
///
/// An applyEdits body carries its adds as a form value, `adds=%5B%7B%22attributes%22…`: the JSON array with every
/// brace, quote, colon and comma percent-encoded. Writing the JSON and then encoding it passes over every byte twice
/// and copies the batch three times (bytes, `String`, body); at 100 adds a request that was a quarter of the load
/// generator's own CPU. Here the JSON's syntax is encoded once per layer and the values (numbers need no encoding)
/// are written into a buffer sized beforehand. ``formEncoded(from:count:)`` decodes to exactly the text of
/// ``encode(from:count:)`` (a test checks it byte for byte).
extension FeatureGenerator {
    /// The features' syntax and keys, percent-encoded once per layer, and the most bytes a feature can take; nil when
    /// a field takes the slow path (its value is not bounded beforehand).
    final class FormPlan: Sendable {
        /// `"name":` of each writable field, encoded, in ``FeatureGenerator/fieldPlans`` order.
        let keys: [[UInt8]]
        /// A coded-value field's codes, or a literal field's value, encoded; empty for other fields.
        let values: [[[UInt8]]]
        let featureOpen = FormPlan.encoded(#"{"attributes":{"#)
        let geometryX = FormPlan.encoded(#"},"geometry":{"x":"#)
        let geometryY = FormPlan.encoded(#","y":"#)
        let closeBoth = FormPlan.encoded("}}")
        let comma = FormPlan.encoded(",")
        let quote = FormPlan.encoded("\"")
        let braceOpen = FormPlan.encoded("{")
        let braceClose = FormPlan.encoded("}")
        /// The most bytes one feature takes.
        let featureBound: Int

        init?(_ plans: [FieldPlan], point: Bool) {
            var keys: [[UInt8]] = []
            var values: [[[UInt8]]] = []
            var bound = 64
            for plan in plans {
                let key = Self.encoded(plan.key)
                keys.append(key)
                var fieldValues: [[UInt8]] = []
                let value: Int
                switch plan.value {
                case .codes(let list):
                    fieldValues = list.map { Self.encoded($0) }
                    value = fieldValues.map(\.count).max() ?? 0
                case .integerRange, .constantInteger, .integer: value = 20
                case .doubleRange, .double: value = Self.numberBound
                case .guid: value = 48
                case .letters(let count): value = 6 + count
                case .text(let prefix, let limit): value = 6 + 3 * min(limit, prefix.count + 26)
                case .literal(let literal):
                    fieldValues = [Self.encoded(literal)]
                    value = fieldValues[0].count
                case .slow: return nil
                }
                values.append(fieldValues)
                bound += key.count + 3 + value
            }
            if point { bound += 96 + 2 * Self.numberBound }
            self.keys = keys
            self.values = values
            featureBound = bound
        }

        /// The most bytes a number takes: 24 characters, or what the general writer gives, each encoded.
        static let numberBound = 96

        static func encoded(_ text: String) -> [UInt8] { encoded(Array(text.utf8)) }

        static func encoded(_ bytes: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count * 3)
            for byte in bytes { FormCursor.appendEncoded(byte, to: &out) }
            return out
        }
    }

    /// The JSON array of the `count` features from `start` (those of ``encode(from:count:)``), percent-encoded as an
    /// `application/x-www-form-urlencoded` value.
    public func formEncoded(from start: Int, count: Int) -> [UInt8] {
        guard let form = formPlan else {
            return FormEncoding.encodedValue(encode(from: start, count: count))
        }
        let capacity = 6 + count * (form.featureBound + 3)
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            var cursor = FormCursor(buffer.baseAddress!)
            cursor.put(0x25, 0x35, 0x42)  // %5B: [
            for index in start..<(start + count) {
                if index > start { cursor.put(form.comma) }
                encodeFeature(at: index, form: form, into: &cursor)
            }
            cursor.put(0x25, 0x35, 0x44)  // %5D: ]
            initialized = cursor.written(since: buffer.baseAddress!)
            precondition(initialized <= capacity, "a feature took more bytes than its bound")
        }
    }

    private func encodeFeature(at index: Int, form: FormPlan, into cursor: inout FormCursor) {
        var random = randomStream(for: index)
        cursor.put(form.featureOpen)
        for (position, field) in fieldPlans.enumerated() {
            if position > 0 { cursor.put(form.comma) }
            cursor.put(form.keys[position])
            switch field.value {
            case .codes(let codes):
                cursor.put(form.values[position][Int(random.next() % UInt64(codes.count))])
            case .integerRange(let low, let high):
                cursor.putDecimal(Int64.random(in: low...high, using: &random))
            case .constantInteger(let value):
                cursor.putDecimal(value)
            case .doubleRange(let low, let high):
                cursor.put(scaled: (Double.random(in: low...high, using: &random) * 100).rounded(), digits: 2)
            case .integer(let range):
                cursor.putDecimal(Int64.random(in: range, using: &random))
            case .double:
                cursor.put(scaled: (Double.random(in: 0...10_000, using: &random) * 100).rounded(), digits: 2)
            case .guid:
                // GlobalID.append's draws, written as %22%7BXXXXXXXX-…%7D%22.
                cursor.put(form.quote)
                cursor.put(form.braceOpen)
                for nibbleIndex in 0..<32 {
                    var nibble = Int(random.next() & 0xF)
                    if nibbleIndex == 12 { nibble = 4 }
                    if nibbleIndex == 16 { nibble = 8 | (nibble & 0x3) }
                    if nibbleIndex == 8 || nibbleIndex == 12 || nibbleIndex == 16 || nibbleIndex == 20 { cursor.put(UInt8(ascii: "-")) }
                    cursor.put(FormCursor.hex(nibble))
                }
                cursor.put(form.braceClose)
                cursor.put(form.quote)
            case .letters(let count):
                cursor.put(form.quote)
                for _ in 0..<count { cursor.put(UInt8(ascii: "A") + UInt8(random.next() % 26)) }
                cursor.put(form.quote)
            case .text(let prefix, let limit):
                cursor.put(form.quote)
                putText(prefix: prefix, limit: limit, index: index, random: &random, into: &cursor)
                cursor.put(form.quote)
            case .literal:
                cursor.put(form.values[position][0])
            case .slow:
                preconditionFailure("a form plan has no slow field")
            }
        }
        if let point = pointGeometry(random: &random) {
            cursor.put(form.geometryX)
            cursor.put(scaled: point.x, digits: 6)
            cursor.put(form.geometryY)
            cursor.put(scaled: point.y, digits: 6)
            cursor.put(form.closeBoth)
        } else {
            cursor.put(form.closeBoth)
        }
    }

    /// `<name> <index> <base 36>` cut to `limit` bytes, then encoded (the text ``encode(from:count:)`` writes).
    private func putText(prefix: [UInt8], limit: Int, index: Int, random: inout SplitMix64, into cursor: inout FormCursor) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefix.count + 26) { text in
            var length = 0
            for byte in prefix {
                text[length] = byte
                length += 1
            }
            var digits = FormCursor(text.baseAddress! + length)
            digits.putDecimal(Int64(index))
            length = digits.written(since: text.baseAddress!)
            text[length] = UInt8(ascii: " ")
            length += 1
            var draw = random.next() % 1_000_000
            let first = length
            repeat {
                let digit = UInt8(draw % 36)
                text[length] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                length += 1
                draw /= 36
            } while draw > 0
            // Most significant digit first.
            var low = first
            var high = length - 1
            while low < high {
                text.swapAt(low, high)
                low += 1
                high -= 1
            }
            for byte in text[0..<min(limit, length)] { cursor.putEncoded(byte) }
        }
    }
}

/// Writes through a pointer into a buffer whose size the caller has checked beforehand.
struct FormCursor {
    private var at: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) {
        at = start
    }

    /// Bytes written since `start`, where the cursor began.
    func written(since start: UnsafeMutablePointer<UInt8>) -> Int { start.distance(to: at) }

    mutating func put(_ byte: UInt8) {
        at.initialize(to: byte)
        at += 1
    }

    mutating func put(_ a: UInt8, _ b: UInt8, _ c: UInt8) {
        put(a)
        put(b)
        put(c)
    }

    mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return }
            // Keys and codes are a few bytes: a loop costs less than a call to memmove.
            if source.count <= 32 {
                for offset in 0..<source.count { (at + offset).initialize(to: base[offset]) }
            } else {
                at.initialize(from: base, count: source.count)
            }
            at += source.count
        }
    }

    /// A byte percent-encoded unless it is unreserved (letters, digits, `-._~`), as ``FormEncoding`` writes it.
    mutating func putEncoded(_ byte: UInt8) {
        if Self.isUnreserved(byte) {
            put(byte)
        } else {
            put(UInt8(ascii: "%"), Self.hex(Int(byte >> 4)), Self.hex(Int(byte & 0xF)))
        }
    }

    static func appendEncoded(_ byte: UInt8, to out: inout [UInt8]) {
        if isUnreserved(byte) {
            out.append(byte)
        } else {
            out.append(contentsOf: [UInt8(ascii: "%"), hex(Int(byte >> 4)), hex(Int(byte & 0xF))])
        }
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// The upper-case hex digit of `nibble` (0–15).
    static func hex(_ nibble: Int) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + UInt8(nibble) : UInt8(ascii: "A") + UInt8(nibble - 10)
    }

    /// A whole number in decimal (digits and `-` need no encoding), written last digit first: dividing by the constant
    /// 10 is a multiplication, by a power of ten held in a variable a division.
    mutating func putDecimal(_ value: Int64) {
        if value < 0 { put(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var probe = magnitude
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        at += digits
        var digit = at
        repeat {
            digit -= 1
            digit.initialize(to: UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
    }

    /// `units / 10^digits` as ``FeatureGenerator/append(scaled:digits:to:)`` writes it, encoded.
    mutating func put(scaled units: Double, digits: Int) {
        guard units.isFinite, abs(units) < 9_007_199_254_740_992, units == units.rounded() else {
            var bytes: [UInt8] = []
            FeatureGenerator.append(scaled: units, digits: digits, to: &bytes)
            for byte in bytes { putEncoded(byte) }
            return
        }
        let whole = Int64(units)
        if whole < 0 { put(UInt8(ascii: "-")) }
        // Each divisor a constant where it is used, so the divisions become multiplications.
        if digits == 2 {
            put(fixed: whole.magnitude, divisor: 100)
        } else {
            put(fixed: whole.magnitude, divisor: 1_000_000)
        }
    }

    /// `magnitude / divisor` with its fraction, trailing zeros dropped but one digit kept (12.5, 3400.0).
    @inline(__always)
    private mutating func put(fixed magnitude: UInt64, divisor: UInt64) {
        putDecimal(Int64(magnitude / divisor))
        put(UInt8(ascii: "."))
        var fraction = magnitude % divisor
        var kept = divisor == 100 ? 2 : 6
        while kept > 1 && fraction % 10 == 0 {
            fraction /= 10
            kept -= 1
        }
        // Last digit first, as putDecimal writes, with the leading zeros the fraction has.
        at += kept
        var digit = at
        for _ in 0..<kept {
            digit -= 1
            digit.initialize(to: UInt8(ascii: "0") + UInt8(fraction % 10))
            fraction /= 10
        }
    }
}
