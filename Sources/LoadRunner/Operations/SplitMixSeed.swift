import FeatureModel

/// Seeded random streams derived from a seed and an index, so any VU draws the same values for the same iteration.
enum SplitMixSeed {
    static func random(seed: UInt64, index: Int) -> SplitMix64 {
        SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15))
    }
}
