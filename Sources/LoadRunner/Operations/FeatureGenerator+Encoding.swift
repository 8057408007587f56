import FeatureModel

/// The generator's fast path: features written straight into JSON bytes from a plan made once per layer.
///
/// A batch of 100 adds built as ``Feature`` values costs a dictionary per feature (hashing every field name),
/// a `String` per number and a second pass to serialise; on the load generator's two shared cores that left the
/// client, not the service, as the limit. ``encode(from:count:)`` draws the same random values in the same order as
/// ``FeatureGenerator/feature(at:)`` and writes them with precomputed keys, so the service receives the same
/// features (a test decodes both and compares), only their member order differs, which JSON leaves free.
extension FeatureGenerator {
    /// How one writable field's value is drawn and written.
    enum ValuePlan: Sendable {
        case codes([[UInt8]])
        case integerRange(Int64, Int64)
        case constantInteger(Int64)
        case doubleRange(Double, Double)
        case integer(ClosedRange<Int64>)
        case double
        case guid
        case letters(count: Int)
        case text(prefix: [UInt8], limit: Int)
        /// Anything the fast path does not handle exactly like ``FeatureGenerator/feature(at:)``.
        case slow(Field)
        case literal([UInt8])
    }

    /// A class, so the per-feature loop retains one reference per field instead of copying its arrays.
    final class FieldPlan: Sendable {
        /// `"name":`, escaped.
        let key: [UInt8]
        let value: ValuePlan

        init(key: [UInt8], value: ValuePlan) {
            self.key = key
            self.value = value
        }
    }

    static func plan(for field: Field) -> FieldPlan {
        var writer = JSONWriter(capacity: field.name.utf8.count + 3)
        writer.write(string: field.name)
        let key = writer.bytes + [UInt8(ascii: ":")]
        return FieldPlan(key: key, value: valuePlan(for: field))
    }

    private static func valuePlan(for field: Field) -> ValuePlan {
        if let domain = field.domain {
            switch domain {
            case .codedValue(_, let values) where !values.isEmpty:
                return .codes(values.map { value in
                    var writer = JSONWriter(capacity: 16)
                    writer.write(value.code)
                    return writer.bytes
                })
            case .range(_, let low, let high):
                if field.type.isInteger {
                    guard low.isFinite, high.isFinite, abs(low) < 9e18, abs(high) < 9e18 else { return .slow(field) }
                    let lowInt = Int64(low.rounded(.up))
                    let highInt = Int64(high.rounded(.down))
                    return highInt >= lowInt ? .integerRange(lowInt, highInt) : .constantInteger(lowInt)
                }
                return .doubleRange(low, high)
            default:
                break
            }
        }
        switch field.type {
        case .smallInteger: return .integer(0...100)
        case .integer, .bigInteger: return .integer(0...1_000_000)
        case .single, .double: return .double
        case .date: return .integer(-2_208_988_800_000...1_735_689_600_000)
        case .guid: return field.isNullable ? .literal(Array("null".utf8)) : .guid
        case .string:
            let limit = field.length ?? 64
            if limit < 8 { return .letters(count: max(1, limit)) }
            // Names that need JSON escapes or are not ASCII (where the limit counts characters) take the slow path.
            guard field.name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
            else { return .slow(field) }
            return .text(prefix: Array(field.name.utf8) + [UInt8(ascii: " ")], limit: limit)
        default:
            return .literal(Array((field.isNullable ? "null" : "\"\"").utf8))
        }
    }

    /// The JSON array of the `count` features from `start`, as ``features(from:count:)`` would give them.
    public func encode(from start: Int, count: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * (fieldPlans.reduce(48) { $0 + $1.key.count + 24 }) + 2)
        bytes.append(UInt8(ascii: "["))
        for index in start..<(start + count) {
            if index > start { bytes.append(UInt8(ascii: ",")) }
            encodeFeature(at: index, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    private func encodeFeature(at index: Int, into bytes: inout [UInt8]) {
        var random = randomStream(for: index)
        bytes.append(contentsOf: #"{"attributes":{"#.utf8)
        for (position, field) in fieldPlans.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: field.key)
            switch field.value {
            case .codes(let codes):
                bytes.append(contentsOf: codes[Int(random.next() % UInt64(codes.count))])
            case .integerRange(let low, let high):
                Self.append(Int64.random(in: low...high, using: &random), to: &bytes)
            case .constantInteger(let value):
                Self.append(value, to: &bytes)
            case .doubleRange(let low, let high):
                Self.append(hundredths: (Double.random(in: low...high, using: &random) * 100).rounded(), to: &bytes)
            case .integer(let range):
                Self.append(Int64.random(in: range, using: &random), to: &bytes)
            case .double:
                Self.append(hundredths: (Double.random(in: 0...10_000, using: &random) * 100).rounded(), to: &bytes)
            case .guid:
                bytes.append(UInt8(ascii: "\""))
                GlobalID.append(using: &random, to: &bytes)
                bytes.append(UInt8(ascii: "\""))
            case .letters(let count):
                bytes.append(UInt8(ascii: "\""))
                for _ in 0..<count { bytes.append(UInt8(ascii: "A") + UInt8(random.next() % 26)) }
                bytes.append(UInt8(ascii: "\""))
            case .text(let prefix, let limit):
                appendText(prefix: prefix, limit: limit, index: index, random: &random, to: &bytes)
            case .slow(let field):
                var writer = JSONWriter(capacity: 64)
                writer.write(value(for: field, index: index, random: &random))
                bytes.append(contentsOf: writer.bytes)
            case .literal(let literal):
                bytes.append(contentsOf: literal)
            }
        }
        bytes.append(UInt8(ascii: "}"))
        if let point = pointGeometry(random: &random) {
            bytes.append(contentsOf: #","geometry":{"x":"#.utf8)
            Self.append(scaled: point.x, digits: 6, to: &bytes)
            bytes.append(contentsOf: #","y":"#.utf8)
            Self.append(scaled: point.y, digits: 6, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// `"<name> <index> <base 36>"` cut to `limit` (ASCII, so bytes are characters).
    private func appendText(prefix: [UInt8], limit: Int, index: Int, random: inout SplitMix64, to bytes: inout [UInt8]) {
        var text = prefix
        text.reserveCapacity(prefix.count + 28)
        Self.append(Int64(index), to: &text)
        text.append(UInt8(ascii: " "))
        var draw = random.next() % 1_000_000
        var digits: [UInt8] = []
        repeat {
            let digit = UInt8(draw % 36)
            digits.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
            draw /= 36
        } while draw > 0
        text.append(contentsOf: digits.reversed())
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: text.prefix(limit))
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends a whole number in decimal.
    static func append(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var position = 20
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[position...]))
        }
    }

    /// Appends `value / 100` for a whole-number `value`, i.e. the double `value / 100` exactly as a decimal parser
    /// reads it back (division and parsing both round the same exact quotient to the nearest double).
    static func append(hundredths value: Double, to bytes: inout [UInt8]) {
        append(scaled: value, digits: 2, to: &bytes)
    }

    /// Appends `units / 10^digits` for a whole-number `units` as a decimal of at most `digits` fraction digits; numbers
    /// beyond 2^53 (not whole in a double) or not finite fall back to the general writer.
    static func append(scaled units: Double, digits: Int, to bytes: inout [UInt8]) {
        let scale = digits == 2 ? 100.0 : 1_000_000.0
        guard units.isFinite, abs(units) < 9_007_199_254_740_992, units == units.rounded() else {
            var writer = JSONWriter(capacity: 32)
            writer.write(units / scale)
            bytes.append(contentsOf: writer.bytes)
            return
        }
        let whole = Int64(units)
        if whole < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = whole.magnitude
        let divisor: UInt64 = digits == 2 ? 100 : 1_000_000
        append(Int64(magnitude / divisor), to: &bytes)
        bytes.append(UInt8(ascii: "."))
        // Trailing zeros dropped but one digit kept, as Swift writes doubles: 12.5, 3400.0.
        var fraction = magnitude % divisor
        var place = divisor / 10
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / place))
            fraction %= place
            place /= 10
        } while fraction > 0
    }
}
