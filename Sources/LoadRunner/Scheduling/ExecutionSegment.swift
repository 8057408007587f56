/// An exact fraction, kept in lowest terms with a positive denominator: execution segments are compared and scaled
/// exactly, never in floating point.
package struct Fraction: Sendable, Hashable, Comparable, CustomStringConvertible {
    let numerator: Int64
    package let denominator: Int64

    package static let zero = Fraction(0, 1)
    package static let one = Fraction(1, 1)
    /// The largest denominator a segment may be written with: finer splits are no use, and products of two such
    /// fractions stay far inside 64 bits.
    static let largestDenominator: Int64 = 1_000_000

    /// `numerator / denominator` in lowest terms.
    /// - Precondition: `denominator != 0`.
    package init(_ numerator: Int64, _ denominator: Int64) {
        precondition(denominator != 0, "a fraction needs a denominator other than 0")
        let divisor = Self.gcd(numerator, denominator)
        let sign: Int64 = denominator < 0 ? -1 : 1
        self.numerator = sign * numerator / divisor
        self.denominator = sign * denominator / divisor
    }

    /// Reads `25%` (a whole number of per cent), `1/4`, `0.25` or `1`, as k6 does; nil for anything else, and for
    /// a value outside 0…1 or finer than ``largestDenominator``.
    package init?(parsing text: String) {
        guard let value = Self.read(text), value.denominator <= Self.largestDenominator, value.numerator >= 0,
            value.numerator <= value.denominator
        else { return nil }
        self = value
    }

    private static func read(_ text: String) -> Fraction? {
        if text.hasSuffix("%") {
            guard let percent = Int64(text.dropLast()), !text.dropLast().hasPrefix("+"), abs(percent) <= 100 else { return nil }
            return Fraction(percent, 100)
        } else if let slash = text.firstIndex(of: "/") {
            guard let numerator = Int64(text[..<slash]), let denominator = Int64(text[text.index(after: slash)...]), denominator > 0,
                abs(numerator) <= denominator
            else { return nil }
            return Fraction(numerator, denominator)
        } else {
            let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            guard let whole = parts.first, !whole.isEmpty || parts.count == 2, whole.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let digits = parts.count == 2 ? parts[1] : ""
            guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), digits.count <= 15, !(whole.isEmpty && digits.isEmpty) else { return nil }
            var scale: Int64 = 1
            for _ in digits { scale *= 10 }
            guard let wholeValue = whole.isEmpty ? 0 : Int64(whole), let fraction = digits.isEmpty ? 0 : Int64(digits) else { return nil }
            guard wholeValue <= 1 else { return nil }
            return Fraction(wholeValue * scale + fraction, scale)
        }
    }

    package static func < (lhs: Fraction, rhs: Fraction) -> Bool {
        lhs.numerator * rhs.denominator < rhs.numerator * lhs.denominator
    }

    package static func + (lhs: Fraction, rhs: Fraction) -> Fraction {
        Fraction(lhs.numerator * rhs.denominator + rhs.numerator * lhs.denominator, lhs.denominator * rhs.denominator)
    }

    package static func - (lhs: Fraction, rhs: Fraction) -> Fraction {
        Fraction(lhs.numerator * rhs.denominator - rhs.numerator * lhs.denominator, lhs.denominator * rhs.denominator)
    }

    package var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (a, b) = (abs(a), abs(b))
        while b != 0 { (a, b) = (b, a % b) }
        return max(a, 1)
    }

    static func lcm(_ a: Int64, _ b: Int64) -> Int64 { a / gcd(a, b) * b }
}

/// Why an execution segment or sequence cannot be used, phrased for the command line.
package struct ExecutionSegmentError: Error, Sendable, Hashable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// A share of a test, `(from, to]` of it, as k6's `--execution-segment` gives it: `1/4:2/4`, `25%:50%`, `0.25:0.5`,
/// or just the end (`25%` is `0:1/4`). Generators that run the segments of one sequence together run the whole test
/// once: every iteration, VU and arrival belongs to exactly one of them.
package struct ExecutionSegment: Sendable, Hashable, CustomStringConvertible {
    package let from: Fraction
    package let to: Fraction

    /// The whole test.
    package static let whole = ExecutionSegment(uncheckedFrom: .zero, to: .one)

    init(uncheckedFrom from: Fraction, to: Fraction) {
        self.from = from
        self.to = to
    }

    /// `(from, to]`, checked: `0 ≤ from < to ≤ 1`.
    package init(from: Fraction, to: Fraction) throws(ExecutionSegmentError) {
        guard from >= .zero else { throw ExecutionSegmentError("the segment's start \(from) must be at least 0") }
        guard from < to else { throw ExecutionSegmentError("the segment's start \(from) must be less than its end \(to)") }
        guard to <= .one else { throw ExecutionSegmentError("the segment's end \(to) cannot be more than 1") }
        self.init(uncheckedFrom: from, to: to)
    }

    /// Reads `FROM:TO` or `TO` (from 0); each a whole per cent (`25%`), a fraction (`1/4`) or a decimal (`0.25`).
    package init(parsing text: String) throws(ExecutionSegmentError) {
        let text = text.isEmpty ? "1" : text
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        var values: [Fraction] = []
        for part in parts {
            guard let value = Fraction(parsing: part) else {
                throw ExecutionSegmentError(
                    "'\(part)' is not a per cent, decimal or fraction from 0 to 1 (denominators up to 1,000,000); write e.g. 1/4:2/4, 25%:50% or 0.25:0.5"
                )
            }
            values.append(value)
        }
        try self.init(from: values.count == 2 ? values[0] : .zero, to: values.count == 2 ? values[1] : values[0])
    }

    package var length: Fraction { to - from }

    package var description: String { "\(from):\(to)" }
}

/// The segments a test is split into, as k6's `--execution-segment-sequence` gives them: `0,1/4,1/2,3/4,1` is four
/// quarters. Points rise strictly from at least 0 to at most 1; gaps at either end are filled when a tuple is made.
package struct ExecutionSegmentSequence: Sendable, Hashable, CustomStringConvertible {
    package let segments: [ExecutionSegment]

    package init(_ segments: [ExecutionSegment]) {
        self.segments = segments
    }

    /// Reads `P0,P1,…,Pn` (at least two points).
    package init(parsing text: String) throws(ExecutionSegmentError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2 else {
            throw ExecutionSegmentError("an execution segment sequence needs at least 2 points, e.g. 0,1/2,1; got '\(text)'")
        }
        var points: [Fraction] = []
        for part in parts {
            guard let point = Fraction(parsing: part) else {
                throw ExecutionSegmentError(
                    "'\(part)' in the sequence is not a per cent, decimal or fraction from 0 to 1 (denominators up to 1,000,000)")
            }
            points.append(point)
        }
        var segments: [ExecutionSegment] = []
        for index in 1..<points.count { segments.append(try ExecutionSegment(from: points[index - 1], to: points[index])) }
        self.init(segments)
    }

    package var description: String {
        guard let first = segments.first else { return "" }
        return ([first.from] + segments.map(\.to)).map(\.description).joined(separator: ",")
    }
}

/// One segment within its (filled) sequence, with the striping that decides which of a test's numbered things —
/// iterations, VUs, arrivals — are its own: k6's execution tuple.
///
/// The sequence's segment lengths are brought to a common denominator `lcd`; numbers `0..<lcd` are dealt out to the
/// segments in proportion to their lengths, largest first, and the pattern repeats every `lcd`. So number `g`
/// belongs to exactly one segment, the segments' shares of any count `v` add up to `v`, and a segment's share never
/// falls as `v` grows.
package struct ExecutionTuple: Sendable, Hashable {
    /// The filled sequence: from 0 to 1 without gaps.
    package let sequence: [ExecutionSegment]
    /// The index of this tuple's segment in ``sequence``.
    package let index: Int
    /// The length of the repeating pattern.
    package let lcd: Int
    /// The numbers in `0..<lcd` this segment owns, rising.
    package let positions: [Int]

    package var segment: ExecutionSegment { sequence[index] }

    /// The whole test: everything is this segment's.
    package static let whole = ExecutionTuple(filled: [.whole], index: 0)

    /// `segment` (nil: the whole test) within `sequence` (nil: the segment alone, gaps filled).
    /// - Throws: when the segment is not one of the sequence's.
    package init(segment: ExecutionSegment?, sequence: ExecutionSegmentSequence?) throws(ExecutionSegmentError) {
        var segments = sequence?.segments ?? []
        if segments.isEmpty { segments = [segment ?? .whole] }
        if let first = segments.first, first.from != .zero { segments.insert(ExecutionSegment(uncheckedFrom: .zero, to: first.from), at: 0) }
        if let last = segments.last, last.to != .one { segments.append(ExecutionSegment(uncheckedFrom: last.to, to: .one)) }
        let wanted = segment ?? .whole
        // The striping pattern is as long as the segments' common denominator: keep it small enough to compute.
        var common: Int64 = 1
        for length in segments.map(\.length) {
            common = Fraction.lcm(common, length.denominator)
            guard common <= Fraction.largestDenominator else {
                throw ExecutionSegmentError(
                    "the segments of \(ExecutionSegmentSequence(segments)) need a common denominator above 1,000,000; split the test into coarser fractions (e.g. 0,1/4,2/4,3/4,1)"
                )
            }
        }
        guard let index = segments.firstIndex(of: wanted) else {
            throw ExecutionSegmentError(
                "the segment \(wanted) is not one of the sequence \(ExecutionSegmentSequence(segments)); give a segment between two of its points")
        }
        self.init(filled: segments, index: index)
    }

    init(filled segments: [ExecutionSegment], index: Int) {
        sequence = segments
        self.index = index
        let lengths = segments.map(\.length)
        let lcd = Int(lengths.reduce(Int64(1)) { Fraction.lcm($0, $1.denominator) })
        self.lcd = lcd
        let norms = lengths.map { Int($0.numerator * Int64(lcd) / $0.denominator) }
        // Largest share first; ties keep the sequence's order.
        let order = norms.indices.sorted { norms[$0] != norms[$1] ? norms[$0] > norms[$1] : $0 < $1 }
        var chosen = Array(repeating: 0, count: segments.count)
        var positions: [Int] = []
        for number in 0..<lcd {
            guard let owner = order.first(where: { number * norms[$0] >= chosen[$0] * lcd }) else { continue }
            chosen[owner] += 1
            if owner == index { positions.append(number) }
        }
        self.positions = positions
    }

    /// How many of `count` numbered things (`0..<count`) are this segment's.
    package func scale(_ count: Int) -> Int {
        guard sequence.count > 1 else { return count }
        let remainder = count % lcd
        return count / lcd * positions.count + positions.count { $0 < remainder }
    }

    /// Whether number `global` is this segment's.
    package func owns(_ global: Int) -> Bool {
        sequence.count == 1 || positions.contains(global % lcd)
    }

    /// The number of this segment's `local`-th thing (from 0) in the whole test.
    package func global(_ local: Int) -> Int {
        guard sequence.count > 1, !positions.isEmpty else { return local }
        return local / positions.count * lcd + positions[local % positions.count]
    }

    /// The first number, the steps between this segment's numbers (cycling) and the pattern's length: k6's striped
    /// offsets.
    package var stripedOffsets: (start: Int, offsets: [Int], lcd: Int) {
        guard let first = positions.first else { return (0, [], lcd) }
        var offsets: [Int] = []
        for index in positions.indices.dropFirst() { offsets.append(positions[index] - positions[index - 1]) }
        offsets.append(first + lcd - positions[positions.count - 1])
        return (first, offsets, lcd)
    }

    /// The tuple re-split by `value` things (VUs, say): each segment of the sequence takes the share of them it
    /// owns, so work that follows the things (a VU's iterations) follows the same split. As k6's executors do for
    /// shared iterations and arrival rates.
    /// - Throws: when `value` is below 1, or this segment owns none of them.
    package func split(by value: Int) throws(ExecutionSegmentError) -> ExecutionTuple {
        guard value >= 1 else { throw ExecutionSegmentError("cannot split by \(value): it needs at least 1") }
        guard sequence.count > 1, value % lcd != 0 else { return self }
        var segments: [ExecutionSegment] = []
        var newIndex: Int?
        var previous = 0
        for (offset, _) in sequence.enumerated() {
            let share = ExecutionTuple(filled: sequence, index: offset).scale(value)
            guard share > 0 else { continue }
            if offset == index { newIndex = segments.count }
            segments.append(
                ExecutionSegment(uncheckedFrom: Fraction(Int64(previous), Int64(value)), to: Fraction(Int64(previous + share), Int64(value))))
            previous += share
        }
        guard let newIndex else { throw ExecutionSegmentError("the segment \(segment) gets none of \(value); it has no work") }
        return ExecutionTuple(filled: segments, index: newIndex)
    }
}
