import FeatureModel
import LoadRunner
import Testing

@Suite struct TimeOrderedGlobalIDTests {
    static let start: UInt64 = 1_764_633_600_000  // 2 December 2025, 00:00 UTC

    @Test("time-ordered GlobalIDs are canonical version-7 GUIDs with the RFC 9562 variant")
    func format() {
        var random = SplitMix64(seed: 1)
        for sequence in 0..<200 {
            let id = GlobalID.makeTimeOrdered(milliseconds: Self.start, sequence: sequence, using: &random)
            #expect(id.utf8.count == 38)
            #expect(GlobalID.normalized(id) == id)
            #expect(GlobalID.normalized(String(id.dropFirst().dropLast()).lowercased()) == id)
            let digits = Array(id)
            #expect(digits[15] == "7")
            #expect("89AB".contains(digits[20]))
        }
    }

    @Test("the first 48 bits hold the milliseconds, the next 12 after the version the sequence")
    func layout() throws {
        var random = SplitMix64(seed: 2)
        let id = GlobalID.makeTimeOrdered(milliseconds: Self.start, sequence: 0xABC, using: &random)
        let hex = id.filter { $0.isHexDigit }
        let milliseconds = try #require(UInt64(String(hex.prefix(12)), radix: 16))
        #expect(milliseconds == Self.start)
        #expect(String(hex.dropFirst(12).prefix(4)) == "7ABC")
    }

    @Test("later milliseconds sort later, and within one millisecond the sequence orders them")
    func ordering() {
        var random = SplitMix64(seed: 3)
        var made: [String] = []
        for millisecond in 0..<20 {
            for sequence in 0..<300 {
                made.append(GlobalID.makeTimeOrdered(milliseconds: Self.start + UInt64(millisecond), sequence: sequence, using: &random))
            }
        }
        #expect(made == made.sorted())
        let full = (0..<4096).map { GlobalID.makeTimeOrdered(milliseconds: Self.start, sequence: $0, using: &random) }
        #expect(full == full.sorted())
    }

    @Test("GlobalIDs made in the same millisecond with the same sequence by different streams still differ")
    func uniqueness() {
        var made = Set<String>()
        for stream in 0..<200 {
            var random = SplitMix64(seed: 0x5EED ^ UInt64(stream) &* 0x9E37_79B9_7F4A_7C15)
            for sequence in 0..<500 { made.insert(GlobalID.makeTimeOrdered(milliseconds: Self.start, sequence: sequence, using: &random)) }
        }
        #expect(made.count == 200 * 500)
    }

    @Test("the clock reads the current time in milliseconds")
    func clock() {
        let now = GlobalID.currentMilliseconds()
        #expect(now > Self.start)
        #expect(now < Self.start + 100 * 365 * 86_400_000)
    }
}
