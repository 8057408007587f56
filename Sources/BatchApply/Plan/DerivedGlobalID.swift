import FeatureModel

/// GlobalIDs derived from what an add is — its layer, its position in the input and its text — so applying the same
/// file to the same layer again finds its adds already there (the service refuses a second row with the same GlobalID)
/// instead of adding them twice, even without the first run's journal.
///
/// A 128-bit hash (two FNV-1a lanes finished by SplitMix64's mixer): not cryptographic, but spread well enough that
/// distinct records do not meet by chance. Written as an RFC 9562 version 8 UUID (custom), in ArcGIS's
/// `{XXXXXXXX-XXXX-8XXX-XXXX-XXXXXXXXXXXX}` form.
public enum DerivedGlobalID {
    /// The GlobalID of the add at `position` of layer `layer` whose input text is `source`.
    public static func make(layer: Int, position: Int, source: String) -> String {
        var high: UInt64 = 0xcbf2_9ce4_8422_2325
        var low: UInt64 = 0x8422_2325_cbf2_9ce4 ^ 0x9e37_79b9_7f4a_7c15
        func mix(_ byte: UInt8) {
            high = (high ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            low = (low ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 &+ 0x9e37_79b9
        }
        for byte in "\(layer):\(position):".utf8 { mix(byte) }
        for byte in source.utf8 { mix(byte) }
        let a = finish(high ^ UInt64(source.utf8.count))
        let b = finish(low &+ a)
        var nibbles: [UInt8] = []
        for word in [a, b] {
            for shift in stride(from: 60, through: 0, by: -4) { nibbles.append(UInt8((word >> UInt64(shift)) & 0xF)) }
        }
        nibbles[12] = 8  // version 8: custom
        nibbles[16] = 0x8 | (nibbles[16] & 0x3)  // RFC 9562 variant
        let hex = Array("0123456789ABCDEF")
        var text = "{"
        for (index, nibble) in nibbles.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { text.append("-") }
            text.append(hex[Int(nibble)])
        }
        return text + "}"
    }

    /// SplitMix64's finaliser.
    static func finish(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
