import Histogram

/// A latency histogram in microseconds (1 µs to 1 h, 3 significant digits by default) that stores sparsely and
/// merges exactly with histograms of the same precision.
///
/// Stored as `(value, count)` pairs of recorded buckets, so a report stays small and histograms from several
/// processes or machines can be merged later with ``merge(_:)``.
package struct LatencyHistogram: Sendable, Codable, Equatable {
    static let highestTrackableMicroseconds: UInt64 = 3_600_000_000

    private(set) var histogram: Histogram<UInt64>

    /// An empty histogram; `significantDigits` is 3 (0.1 %) for whole-run latencies, 2 (1 %) for the small
    /// per-second histograms of time series (0 and 1 make the smallest, for placeholders).
    package init(significantDigits: Int = 3) {
        histogram = Histogram<UInt64>(
            lowestDiscernibleValue: 1, highestTrackableValue: Self.highestTrackableMicroseconds,
            numberOfSignificantValueDigits: significantDigits == 0 ? .zero : significantDigits == 1 ? .one : significantDigits == 2 ? .two : .three)
    }

    /// The precision: 2 or 3 significant digits.
    package var significantDigits: Int {
        switch histogram.numberOfSignificantValueDigits {
        case .zero: return 0
        case .one: return 1
        case .two: return 2
        default: return 3
        }
    }

    /// Records one latency; values beyond the trackable range are clamped to it.
    package mutating func record(_ duration: Duration) {
        record(microseconds: duration.microseconds)
    }

    /// Records one latency in microseconds (at least 1).
    package mutating func record(microseconds: UInt64) {
        histogram.record(Swift.min(Swift.max(microseconds, 1), Self.highestTrackableMicroseconds))
    }

    /// Adds every value of `other`: exactly when both have the same precision, else value by value at this one's
    /// (histograms of different precision cannot be added bucket by bucket; reports from other versions or tools
    /// may mix them, and a merge must never trap).
    package mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        if other.significantDigits == significantDigits {
            histogram.add(other.histogram)
            return
        }
        let range = other.exactRange
        for value in other.histogram.recordedValues() {
            let clamped = Swift.min(Swift.max(value.value, range?.min ?? 0), range?.max ?? value.value)
            histogram.record(Swift.min(Swift.max(clamped, 1), Self.highestTrackableMicroseconds), count: value.count)
        }
    }

    /// The recorded values and their counts, ascending: the sparse form a report stores.
    package var recorded: [[UInt64]] { histogram.recordedValues().map { [$0.value, $0.count] } }

    package var count: UInt64 { histogram.totalCount }
    /// The value at a percentile (0…100), in microseconds; 0 when empty.
    package func percentile(_ percentile: Double) -> UInt64 {
        count == 0 ? 0 : histogram.valueAtPercentile(percentile)
    }
    package var max: UInt64 { count == 0 ? 0 : histogram.max }
    package var min: UInt64 { count == 0 ? 0 : histogram.min }
    package var mean: Double { count == 0 ? 0 : histogram.mean }

    /// A histogram holding `sparse`'s values. Buckets hold each bucket's highest equivalent value; the exact `min`
    /// and `max` (saved beside them) are recorded in place of their buckets' values, so percentiles, which are
    /// clamped to the recorded range, come out exactly as they did before the histogram was saved.
    package init(_ sparse: SparseLatency) {
        self.init(significantDigits: sparse.significantDigits)
        let buckets = sparse.buckets.filter { $0.count == 2 && $0[1] > 0 }
        for (index, pair) in buckets.enumerated() {
            let value = Swift.min(pair[0], Self.highestTrackableMicroseconds)
            var count = pair[1]
            if index == 0, let exactMin = sparse.min, histogram.highestEquivalentForValue(exactMin) == value {
                histogram.record(exactMin)
                count -= 1
            }
            guard count > 0 else { continue }
            let last = index == buckets.count - 1
            if last, let exactMax = sparse.max, histogram.highestEquivalentForValue(exactMax) == value {
                histogram.record(exactMax, count: count)
            } else {
                histogram.record(value, count: count)
            }
        }
    }

    /// The exact smallest and largest values recorded (`min` and `max` report bucket bounds); nil when empty.
    var exactRange: (min: UInt64, max: UInt64)? { count == 0 ? nil : (histogram.min, histogram.maxRecorded) }

    package init(from decoder: any Decoder) throws {
        self.init(try SparseLatency(from: decoder))
    }

    package func encode(to encoder: any Encoder) throws {
        try SparseLatency(self).encode(to: encoder)
    }

    package static func == (lhs: LatencyHistogram, rhs: LatencyHistogram) -> Bool {
        Array(lhs.histogram.recordedValues().map { [$0.value, $0.count] })
            == Array(rhs.histogram.recordedValues().map { [$0.value, $0.count] })
    }
}

extension Duration {
    /// Whole microseconds, rounded down, never negative.
    var microseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        return UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000)
    }
}
