import FeatureModel

/// GlobalIDs derived from what an add is — its layer, its position in the input and its text — so applying the same
/// file to the same layer again finds its adds already there (the service refuses a second row with the same GlobalID)
/// instead of adding them twice, even without the first run's journal.
///
/// A 128-bit hash (two FNV-1a lanes finished by SplitMix64's mixer): not cryptographic, but spread well enough that
/// distinct records do not meet by chance. Written as an RFC 9562 version 8 UUID (custom), in ArcGIS's
/// `{XXXXXXXX-XXXX-8XXX-XXXX-XXXXXXXXXXXX}` form.
///
/// Two ways of writing it (``Scheme``): the ``Scheme/ordered`` IDs every new run derives begin with the add's
/// position, so a file's adds go into the service's GlobalID index one after another; the ``Scheme/hashed`` IDs of
/// earlier releases are hash throughout, so each add lands on a different page of that index (a batch of 1,000 dirtied
/// hundreds of pages, and cost the local service about twice the CPU of ordered IDs). A run finds out, before it
/// plans, whether an earlier release applied the same input (`apply` looks the first adds up by their hashed IDs), and
/// then derives them as that release did.
package enum DerivedGlobalID {
    /// How the 128 bits are laid out. Journals record it, so a resumed run derives its IDs as it began.
    package enum Scheme: Int, Sendable, Hashable, Codable {
        /// Hash throughout, but for the version and variant bits: the IDs of releases before ``ordered``.
        case hashed = 1
        /// The add's position in the first 48 bits (so ordered as the input is), then the version, then 74 bits of
        /// the hash. Two adds at different positions never share an ID; two at the same position (of different layers
        /// or texts) differ by the hash.
        case ordered = 2
    }

    /// The GlobalID of the add at `position` of layer `layer` whose input text is `source`.
    package static func make(layer: Int, position: Int, source: String, scheme: Scheme) -> String {
        var source = source
        return source.withUTF8 { make(layer: layer, position: position, utf8: $0, scheme: scheme) }
    }

    /// The GlobalID of the add at `position` of layer `layer` whose input text is the UTF-8 bytes `utf8`: the same as
    /// ``make(layer:position:source:scheme:)`` for the same text.
    package static func make(layer: Int, position: Int, utf8 source: UnsafeBufferPointer<UInt8>, scheme: Scheme) -> String {
        var lanes = Lanes()
        // `<layer>:<position>:`, as the decimal text of each, without making a String of it.
        lanes.mixDecimal(layer)
        lanes.mixDecimal(position)
        for byte in source { lanes.mix(byte) }
        let a = finish(lanes.high ^ UInt64(source.count))
        let b = finish(lanes.low &+ a)
        // `{XXXXXXXX-XXXX-8XXX-YXXX-XXXXXXXXXXXX}`: version 8 (custom) and the RFC 9562 variant set in the bits.
        let second = b & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        switch scheme {
        case .hashed:
            return GlobalID.canonical(high: a & ~0xF000 | 0x8000, low: second)
        case .ordered:
            let position = UInt64(truncatingIfNeeded: position) & 0xFFFF_FFFF_FFFF
            return GlobalID.canonical(high: position << 16 | 0x8000 | a & 0x0FFF, low: second)
        }
    }

    /// The hash's two FNV-1a lanes: a value of its own, not variables captured by nested functions, which were
    /// reached through dynamically checked accesses (`swift_beginAccess` in a profile of the planner).
    struct Lanes {
        var high: UInt64 = 0xcbf2_9ce4_8422_2325
        var low: UInt64 = 0x8422_2325_cbf2_9ce4 ^ 0x9e37_79b9_7f4a_7c15

        @inline(__always)
        mutating func mix(_ byte: UInt8) {
            high = (high ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            low = (low ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 &+ 0x9e37_79b9
        }

        /// The decimal text of `number`, then `:`.
        mutating func mixDecimal(_ number: Int) {
            if number < 0 { mix(UInt8(ascii: "-")) }
            let magnitude = number.magnitude
            var divisor: UInt = 1
            while magnitude / divisor >= 10 { divisor *= 10 }
            repeat {
                mix(UInt8(ascii: "0") + UInt8((magnitude / divisor) % 10))
                divisor /= 10
            } while divisor > 0
            mix(UInt8(ascii: ":"))
        }
    }

    /// SplitMix64's finaliser.
    static func finish(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
