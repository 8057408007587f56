import FeatureModel
import GRDB

extension SQLValue {
    /// The GRDB value bound for this SQL value.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let value): return value.databaseValue
        case .real(let value): return value.databaseValue
        case .text(let value): return value.databaseValue
        }
    }

    /// Whether this is SQL NULL.
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension StatementArguments {
    /// Arguments binding `values` in order.
    init(_ values: [SQLValue]) {
        self.init(values.map(\.databaseValue))
    }
}

/// Makes the GlobalIDs the server assigns: time-ordered UUIDs (RFC 9562 version 7).
///
/// The 48-bit millisecond timestamp and the 12-bit counter after it rise monotonically, so each new GlobalID
/// sorts after the last one and the unique GlobalID index grows at its right edge. Random GUIDs would dirty a
/// different index page for nearly every row of a large batch, and each dirty page is a 4 KiB WAL write.
struct GlobalIDFactory {
    /// The last 60-bit timestamp-and-counter value handed out.
    private(set) var sequence: UInt64
    private var generator: SplitMix64

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// - Parameters:
    ///   - previous: The last sequence value this store handed out (0 at first).
    ///   - nowMilliseconds: The current time in epoch milliseconds.
    init(previous: UInt64, nowMilliseconds: Int64, seed: UInt64 = UInt64.random(in: UInt64.min...UInt64.max)) {
        let fromClock = UInt64(max(nowMilliseconds, 0)) << 12
        sequence = max(previous, fromClock == 0 ? 0 : fromClock - 1)
        generator = SplitMix64(seed: seed)
    }

    mutating func make() -> String {
        sequence = (sequence &+ 1) & 0x0FFF_FFFF_FFFF_FFFF
        let timestamp = (sequence >> 12) & 0xFFFF_FFFF_FFFF
        let counter = sequence & 0xFFF
        let high = timestamp << 16 | 0x7000 | counter  // version 7
        let low = (generator.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 4122 variant
        var bytes = [UInt8](repeating: 0, count: 38)
        bytes[0] = UInt8(ascii: "{")
        bytes[37] = UInt8(ascii: "}")
        var position = 1
        for (word, range) in [(high, 0..<16), (low, 16..<32)] {
            for nibbleIndex in range {
                if nibbleIndex == 8 || nibbleIndex == 12 || nibbleIndex == 16 || nibbleIndex == 20 {
                    bytes[position] = UInt8(ascii: "-")
                    position += 1
                }
                let shift = UInt64(60 - 4 * (nibbleIndex % 16))
                bytes[position] = Self.hexDigits[Int((word >> shift) & 0xF)]
                position += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
