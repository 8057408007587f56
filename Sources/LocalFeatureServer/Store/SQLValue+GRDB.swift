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

/// Makes GlobalIDs quickly: one system-random seed per batch, then SplitMix64; formatted as `{8-4-4-4-12}` upper hex.
///
/// The unique index on GlobalID still guards against the (astronomically unlikely) collision.
struct GlobalIDFactory {
    private var generator = SeededGenerator(seed: UInt64.random(in: UInt64.min...UInt64.max))

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    mutating func make() -> String {
        let high = generator.next()
        var low = generator.next()
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 4122 variant
        let versioned = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
        var bytes = [UInt8](repeating: 0, count: 38)
        bytes[0] = UInt8(ascii: "{")
        bytes[37] = UInt8(ascii: "}")
        var position = 1
        for (word, range) in [(versioned, 0..<16), (low, 16..<32)] {
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
