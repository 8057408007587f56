import FeatureModel

/// Bytes written through a pointer into storage that grows on ``reserve(_:)``. The writes themselves do not check
/// for room (their callers reserve it): the generator's writes are a few bytes each, and an array's checks per
/// append cost as much as the write.
struct ByteWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written.
    consuming func take() -> [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// Room for `extra` more bytes.
    mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let grown = max(capacity * 2, count + extra)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.moveInitialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = grown
    }

    mutating func put(_ byte: UInt8) {
        assert(count < capacity, "write past the room reserved")
        (base + count).initialize(to: byte)
        count += 1
    }

    mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { put($0) }
    }

    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        assert(count + bytes.count <= capacity, "write past the room reserved")
        // Keys and codes are a few bytes: a loop costs less than a call to memmove.
        if bytes.count <= 32 {
            for offset in 0..<bytes.count { (base + count + offset).initialize(to: source[offset]) }
        } else {
            (base + count).initialize(from: source, count: bytes.count)
        }
        count += bytes.count
    }

    /// `bytes`, percent-encoded as ``FormEncoding`` writes them when `encoded`.
    mutating func put(_ bytes: [UInt8], encoded: Bool) {
        bytes.withUnsafeBufferPointer { put($0, encoded: encoded) }
    }

    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>, encoded: Bool) {
        guard encoded else { return put(bytes) }
        assert(count + 3 * bytes.count <= capacity, "write past the room reserved")
        for byte in bytes {
            if FormEncoding.isUnreserved(byte) {
                (base + count).initialize(to: byte)
                count += 1
            } else {
                (base + count).initialize(to: UInt8(ascii: "%"))
                (base + count + 1).initialize(to: FormEncoding.hexDigit(byte >> 4))
                (base + count + 2).initialize(to: FormEncoding.hexDigit(byte & 0xF))
                count += 3
            }
        }
    }

    /// A whole number in decimal (digits and `-` need no encoding).
    mutating func putDecimal(_ value: Int64) {
        assert(count + 20 <= capacity, "write past the room reserved")
        count += Self.writeDecimal(value, at: base + count)
    }

    /// Writes `value` in decimal at `destination` (room for 20 bytes), last digits first into their place, two at a
    /// time from a table (dividing by the constant 100 is a multiplication); returns the number of bytes written.
    @inline(__always)
    static func writeDecimal(_ value: Int64, at destination: UnsafeMutablePointer<UInt8>) -> Int {
        var length = 0
        if value < 0 {
            destination.initialize(to: UInt8(ascii: "-"))
            length = 1
        }
        var magnitude = value.magnitude
        // Digits by comparison: an Int64's magnitude has at most 19, and 10^19 still fits a UInt64.
        var digits = 1
        var threshold: UInt64 = 10
        while digits < 19 && magnitude >= threshold {
            threshold &*= 10
            digits += 1
        }
        length += digits
        var digit = destination + length
        let pairs = digitPairs.utf8Start
        while magnitude >= 100 {
            let pair = Int(magnitude % 100) &* 2
            magnitude /= 100
            digit -= 2
            digit.initialize(to: pairs[pair])
            (digit + 1).initialize(to: pairs[pair + 1])
        }
        if magnitude >= 10 {
            let pair = Int(magnitude) &* 2
            digit -= 2
            digit.initialize(to: pairs[pair])
            (digit + 1).initialize(to: pairs[pair + 1])
        } else {
            digit -= 1
            digit.initialize(to: UInt8(ascii: "0") + UInt8(magnitude))
        }
        return length
    }

    /// `00` to `99`, each two digits at its number × 2.
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// `units / 10^digits` (2 or 6) for a whole-number `units`, as a decimal of at most `digits` fraction digits,
    /// trailing zeros dropped but one kept, as Swift writes doubles (12.5, 3400.0): the double `units / 10^digits`
    /// exactly as a decimal parser reads it back (division and parsing both round the same exact quotient). Numbers
    /// beyond 2^53 (not whole in a double) or not finite go through the general writer (encoded when `encoded`).
    mutating func put(scaled units: Double, digits: Int, encoded: Bool) {
        guard units.isFinite, abs(units) < 9_007_199_254_740_992, units == units.rounded() else {
            var writer = JSONWriter(capacity: 32)
            writer.write(units / (digits == 2 ? 100.0 : 1_000_000.0))
            return put(writer.bytes, encoded: encoded)
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

    /// `magnitude / divisor` with its fraction, trailing zeros dropped but one digit kept.
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
        count += kept
        var digit = base + count
        for _ in 0..<kept {
            digit -= 1
            digit.initialize(to: UInt8(ascii: "0") + UInt8(fraction % 10))
            fraction /= 10
        }
    }
}
