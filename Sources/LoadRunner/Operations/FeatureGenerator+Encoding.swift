import FeatureModel

/// The generator's fast path: features written straight into bytes from a plan made once per layer.
///
/// A batch of 100 adds built as ``Feature`` values costs a dictionary per feature (hashing every field name),
/// a `String` per number and a second pass to serialise; on the load generator's two shared cores that left the
/// client, not the service, as the limit. The writer draws the same random values in the same order as
/// ``FeatureGenerator/feature(at:)`` and writes them with precomputed keys, so the service receives the same
/// features (a test decodes both and compares), only their member order differs, which JSON leaves free.
///
/// It writes a batch as JSON text (``encode(from:count:)``) or, for the request body, percent-encoded as a form value
/// (``formEncoded(from:count:)``): the JSON's syntax and keys are encoded once per layer (``Syntax``), and numbers need
/// no encoding, so the body is written in one pass rather than written, copied into a `String` and encoded again (at
/// 100 adds a request that was a quarter of the generator's own CPU).
extension FeatureGenerator {
    /// How one writable field's value is drawn and written. No case carries anything reference-counted, so the
    /// per-feature switch copies nothing to retain and release (at 100 adds a request, 600 fields); the bytes a case
    /// needs are in its ``FieldPlan`` and ``Syntax``.
    enum ValuePlan: Sendable {
        /// One of ``FieldPlan/codes`` (their count here, so the switch reads it without touching the array).
        case codes(count: Int)
        case integerRange(Int64, Int64)
        case constantInteger(Int64)
        case doubleRange(Double, Double)
        case integer(ClosedRange<Int64>)
        case double
        case guid
        case letters(count: Int)
        /// ``FieldPlan/textPrefix``, the feature's index and a random suffix, cut to `limit`.
        case text(limit: Int)
        /// Anything the fast path does not handle exactly like ``FeatureGenerator/feature(at:)``: ``FieldPlan/field``
        /// goes through the general writer.
        case slow
        /// ``FieldPlan/literal``.
        case literal
    }

    /// One writable field's plan: how its value is drawn, and the bytes that takes.
    final class FieldPlan: Sendable {
        let field: Field
        /// `"name":`, escaped.
        let key: [UInt8]
        let value: ValuePlan
        /// The coded values as JSON (``ValuePlan/codes(count:)``).
        let codes: [[UInt8]]
        /// `name `, what a text value starts with (``ValuePlan/text(limit:)``).
        let textPrefix: [UInt8]
        /// The value every feature gets (``ValuePlan/literal``).
        let literal: [UInt8]

        init(field: Field, key: [UInt8], value: ValuePlan, codes: [[UInt8]] = [], textPrefix: [UInt8] = [], literal: [UInt8] = []) {
            self.field = field
            self.key = key
            self.value = value
            self.codes = codes
            self.textPrefix = textPrefix
            self.literal = literal
        }
    }

    static func plan(for field: Field) -> FieldPlan {
        var writer = JSONWriter(capacity: field.name.utf8.count + 3)
        writer.write(string: field.name)
        let key = writer.bytes + [UInt8(ascii: ":")]
        if let domain = field.domain, case .codedValue(_, let values) = domain, !values.isEmpty {
            let codes = values.map { value in
                var writer = JSONWriter(capacity: 16)
                writer.write(value.code)
                return writer.bytes
            }
            return FieldPlan(field: field, key: key, value: .codes(count: codes.count), codes: codes)
        }
        switch valuePlan(for: field) {
        case .text(let limit):
            return FieldPlan(field: field, key: key, value: .text(limit: limit), textPrefix: Array(field.name.utf8) + [UInt8(ascii: " ")])
        case .literal:
            return FieldPlan(field: field, key: key, value: .literal, literal: Array((field.isNullable ? "null" : "\"\"").utf8))
        case let plan:
            return FieldPlan(field: field, key: key, value: plan)
        }
    }

    /// The plan of a field without coded values.
    private static func valuePlan(for field: Field) -> ValuePlan {
        if let domain = field.domain {
            switch domain {
            case .range(_, let low, let high):
                if field.type.isInteger {
                    guard low.isFinite, high.isFinite, abs(low) < 9e18, abs(high) < 9e18 else { return .slow }
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
        case .guid: return field.isNullable ? .literal : .guid
        case .string:
            let limit = field.length ?? 64
            if limit < 8 { return .letters(count: max(1, limit)) }
            // Names that need JSON escapes or are not ASCII (where the limit counts characters) take the slow path.
            guard field.name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
            else { return .slow }
            return .text(limit: limit)
        default:
            return .literal
        }
    }

    /// The JSON array of the `count` features from `start`, as ``features(from:count:)`` would give them.
    package func encode(from start: Int, count: Int) -> String {
        String(decoding: write(from: start, count: count, in: jsonSyntax), as: UTF8.self)
    }

    /// That JSON array percent-encoded as an `application/x-www-form-urlencoded` value, as ``FormEncoding`` writes it.
    package func formEncoded(from start: Int, count: Int) -> [UInt8] {
        write(from: start, count: count, in: formSyntax)
    }

    /// ``formEncoded(from:count:)`` with each feature's GlobalID in attribute `field`: `globalIds[i]` for the feature at
    /// `start + i` (exactly-once adds: sent with `useGlobalIds=true`, their GlobalIDs known before sending).
    package func formEncoded(from start: Int, count: Int, globalIdField field: String, globalIds: [String]) -> [UInt8] {
        precondition(globalIds.count == count, "one GlobalID per feature")
        var writer = JSONWriter(capacity: field.utf8.count + 3)
        writer.write(string: field)
        let key = FormEncoding.encodedValue(utf8: writer.bytes + [UInt8(ascii: ":")])
        return write(from: start, count: count, in: formSyntax, globalIds: (key, globalIds))
    }

    /// The fixed parts of the features' JSON (punctuation, keys, coded values, literals), as JSON text or
    /// percent-encoded; and whether the parts written per feature (text, a slow field's value) are encoded too.
    final class Syntax: Sendable {
        let encodes: Bool
        let arrayOpen: [UInt8]
        let arrayClose: [UInt8]
        let featureOpen: [UInt8]
        /// Closes the attributes and opens the point: `},"geometry":{"x":`.
        let geometryX: [UInt8]
        let geometryY: [UInt8]
        /// `}}`: the attributes (or the point) and the feature.
        let closeBoth: [UInt8]
        let comma: [UInt8]
        let quote: [UInt8]
        let braceOpen: [UInt8]
        let braceClose: [UInt8]
        /// Each field's `"name":`, in ``FeatureGenerator/fieldPlans`` order.
        let keys: [[UInt8]]
        /// Each field's coded values, or its literal; empty for other fields.
        let values: [[[UInt8]]]
        /// The most bytes a feature takes, a slow field's value left out (the writer makes room for it when it has it).
        let featureBound: Int

        /// The most bytes a number takes: 24 characters, or what the general writer gives, each encoded.
        static let numberBound = 96

        init(_ plans: [FieldPlan], point: Bool, encoded: Bool) {
            func form(_ text: String) -> [UInt8] { form(Array(text.utf8)) }
            func form(_ bytes: [UInt8]) -> [UInt8] { encoded ? FormEncoding.encodedValue(utf8: bytes) : bytes }
            encodes = encoded
            arrayOpen = form("[")
            arrayClose = form("]")
            featureOpen = form(#"{"attributes":{"#)
            geometryX = form(#"},"geometry":{"x":"#)
            geometryY = form(#","y":"#)
            closeBoth = form("}}")
            comma = form(",")
            quote = form("\"")
            braceOpen = form("{")
            braceClose = form("}")
            keys = plans.map { form($0.key) }
            values = plans.map { plan in
                switch plan.value {
                case .codes: plan.codes.map(form)
                case .literal: [form(plan.literal)]
                default: []
                }
            }
            var bound = featureOpen.count + closeBoth.count + (point ? geometryX.count + geometryY.count + 2 * Self.numberBound : 0)
            for (index, plan) in plans.enumerated() {
                bound += comma.count + keys[index].count
                switch plan.value {
                case .codes, .literal: bound += values[index].map(\.count).max() ?? 0
                case .integerRange, .constantInteger, .integer: bound += 20
                case .doubleRange, .double: bound += Self.numberBound
                case .guid: bound += 2 * quote.count + 3 * 38
                case .letters(let count): bound += 2 * quote.count + count
                case .text(let limit): bound += 2 * quote.count + 3 * min(limit, plan.textPrefix.count + 26)
                case .slow: break
                }
            }
            featureBound = bound
        }
    }

    /// `globalIds`: an attribute written last in every feature, its key (as `syntax` writes keys) and each feature's value.
    private func write(from start: Int, count: Int, in syntax: Syntax, globalIds: (key: [UInt8], values: [String])? = nil) -> [UInt8] {
        let framing = syntax.arrayOpen.count + syntax.arrayClose.count
        // A GlobalID is 38 characters, each at most 3 bytes encoded.
        let extra = globalIds.map { syntax.comma.count + $0.key.count + 2 * syntax.quote.count + 3 * 38 } ?? 0
        // Each feature's reserve below asks for its own room and the closing bracket's beyond what is written, the
        // opening bracket included: with that counted, the first allocation is the only one.
        var bytes = ByteWriter(capacity: syntax.arrayOpen.count + framing + count * (syntax.featureBound + extra + syntax.comma.count))
        // GlobalID.append's scratch, kept from one GUID to the next.
        var scratch: [UInt8] = []
        bytes.put(syntax.arrayOpen)
        for index in start..<(start + count) {
            // Room for the feature, and for what is left to write after it: the writes do not check.
            bytes.reserve(syntax.comma.count + syntax.featureBound + extra + framing)
            if index > start { bytes.put(syntax.comma) }
            let globalId = globalIds.map { ($0.key, $0.values[index - start]) }
            writeFeature(at: index, in: syntax, to: &bytes, scratch: &scratch, globalId: globalId)
        }
        bytes.put(syntax.arrayClose)
        return bytes.take()
    }

    private func writeFeature(
        at index: Int, in syntax: Syntax, to bytes: inout ByteWriter, scratch: inout [UInt8], globalId: (key: [UInt8], value: String)? = nil
    ) {
        var random = randomStream(for: index)
        bytes.put(syntax.featureOpen)
        // Plans and keys are read in place, through buffer pointers: copying a plan out of its array (as a `for` over
        // it does) retains and releases each of its strings and arrays, for every field of every feature.
        fieldPlans.withUnsafeBufferPointer { plans in
            syntax.keys.withUnsafeBufferPointer { keys in
                for position in plans.indices {
                    if position > 0 { bytes.put(syntax.comma) }
                    bytes.put(keys[position])
                    writeValue(of: plans[position], at: position, index: index, in: syntax, to: &bytes, scratch: &scratch, random: &random)
                }
            }
        }
        if let (key, value) = globalId {
            if !fieldPlans.isEmpty { bytes.put(syntax.comma) }
            bytes.put(key)
            bytes.put(syntax.quote)
            bytes.put(Array(value.utf8), encoded: syntax.encodes)
            bytes.put(syntax.quote)
        }
        if let point = pointGeometry(random: &random) {
            bytes.put(syntax.geometryX)
            bytes.put(scaled: point.x, digits: 6, encoded: syntax.encodes)
            bytes.put(syntax.geometryY)
            bytes.put(scaled: point.y, digits: 6, encoded: syntax.encodes)
        }
        bytes.put(syntax.closeBoth)
    }

    /// Writes the value of the field planned by `field` (at `position` in ``fieldPlans``) for the feature at `index`.
    private func writeValue(
        of field: FieldPlan, at position: Int, index: Int, in syntax: Syntax, to bytes: inout ByteWriter, scratch: inout [UInt8],
        random: inout SplitMix64
    ) {
        switch field.value {
        case .codes(let count):
            bytes.put(syntax.values[position][Int(random.next() % UInt64(count))])
        case .integerRange(let low, let high):
            bytes.putDecimal(Int64.random(in: low...high, using: &random))
        case .constantInteger(let value):
            bytes.putDecimal(value)
        case .doubleRange(let low, let high):
            bytes.put(scaled: (Double.random(in: low...high, using: &random) * 100).rounded(), digits: 2, encoded: syntax.encodes)
        case .integer(let range):
            bytes.putDecimal(Int64.random(in: range, using: &random))
        case .double:
            bytes.put(scaled: (Double.random(in: 0...10_000, using: &random) * 100).rounded(), digits: 2, encoded: syntax.encodes)
        case .guid:
            scratch.removeAll(keepingCapacity: true)
            GlobalID.append(using: &random, to: &scratch)
            bytes.put(syntax.quote)
            bytes.put(scratch, encoded: syntax.encodes)
            bytes.put(syntax.quote)
        case .letters(let count):
            bytes.put(syntax.quote)
            for _ in 0..<count { bytes.put(UInt8(ascii: "A") + UInt8(random.next() % 26)) }
            bytes.put(syntax.quote)
        case .text(let limit):
            bytes.put(syntax.quote)
            putText(prefix: field.textPrefix, limit: limit, index: index, random: &random, encoded: syntax.encodes, to: &bytes)
            bytes.put(syntax.quote)
        case .slow:
            var writer = JSONWriter(capacity: 64)
            writer.write(value(for: field.field, index: index, random: &random))
            // Not in the feature's bound: room for it and for the rest of the feature.
            bytes.reserve(3 * writer.bytes.count + syntax.featureBound)
            bytes.put(writer.bytes, encoded: syntax.encodes)
        case .literal:
            bytes.put(syntax.values[position][0])
        }
    }

    /// `"<name> <index> <base 36>"` cut to `limit` (ASCII, so bytes are characters).
    private func putText(prefix: [UInt8], limit: Int, index: Int, random: inout SplitMix64, encoded: Bool, to bytes: inout ByteWriter) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefix.count + 26) { text in
            var length = 0
            for byte in prefix {
                text[length] = byte
                length += 1
            }
            // The room allocated: the prefix, 20 characters of index, a space and 4 of base 36.
            length += ByteWriter.writeDecimal(Int64(index), at: text.baseAddress! + length)
            text[length] = UInt8(ascii: " ")
            length += 1
            // Base 36, most significant digit first.
            var draw = random.next() % 1_000_000
            var base36: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
            var count = 0
            withUnsafeMutableBytes(of: &base36) { digits in
                repeat {
                    let digit = UInt8(draw % 36)
                    digits[count] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                    count += 1
                    draw /= 36
                } while draw > 0
                for offset in stride(from: count - 1, through: 0, by: -1) {
                    text[length] = digits[offset]
                    length += 1
                }
            }
            bytes.put(UnsafeBufferPointer(rebasing: text[0..<min(limit, length)]), encoded: encoded)
        }
    }
}
