package import FeatureModel
import Foundation

extension GlobalID {
    /// A new time-ordered GlobalID in canonical form (`{8-4-4-4-12}`, upper-case hex): an RFC 9562 version 7 UUID
    /// holding `milliseconds` (Unix epoch) in its first 48 bits, then the low 12 bits of `sequence`, then 62 random
    /// bits from `generator`.
    ///
    /// GlobalIDs made later sort after earlier ones, and those made in one millisecond by `sequence` (up to 4,096 of
    /// them), so a service's unique GlobalID index takes each batch's at its right edge, a page or two a batch, where
    /// random (version 4) GUIDs land on a different index page nearly each: the page is read back, rewritten and
    /// logged for one add. SQLite does that, and so does SQL Server with GUID keys (its index fragmentation). Still
    /// unique: two meet only when made in the same millisecond with the same sequence and the same 62 random bits.
    package static func makeTimeOrdered<G: RandomNumberGenerator>(milliseconds: UInt64, sequence: Int, using generator: inout G) -> String {
        let high = (milliseconds & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | (UInt64(truncatingIfNeeded: sequence) & 0xFFF)  // version 7
        let low = (generator.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 9562 variant
        return canonical(high: high, low: low)
    }

    /// The wall clock in Unix epoch milliseconds, for ``makeTimeOrdered(milliseconds:sequence:using:)``.
    package static func currentMilliseconds() -> UInt64 {
        UInt64(max(Date().timeIntervalSince1970 * 1000, 0))
    }
}
