/// A latency histogram in the form a report saves: the `[value, count]` pairs of its recorded buckets and the exact
/// smallest and largest values.
///
/// A few hundred bytes where a live ``LatencyHistogram`` of the same values holds tens of KiB of counters, so a run's
/// per-second time series is kept in this form once a second has passed, and a long run's report stays small in
/// memory. ``LatencyHistogram/init(_:)`` turns it back into a histogram with exactly the same percentiles.
package struct SparseLatency: Sendable, Codable, Equatable {
    package var significantDigits: Int
    /// Exact extremes in microseconds (nil when nothing was recorded or the file predates them).
    package var min: UInt64?
    package var max: UInt64?
    /// value, count, value, count, …: one array, not an array per bucket (a long run keeps one of these per second).
    private var pairs: [UInt64]

    /// `[value, count]` of every recorded bucket, ascending; the value is the bucket's highest equivalent value.
    package var buckets: [[UInt64]] {
        get { stride(from: 0, to: pairs.count - 1, by: 2).map { [pairs[$0], pairs[$0 + 1]] } }
        set { pairs = newValue.filter { $0.count == 2 }.flatMap { $0 } }
    }

    package init(_ histogram: LatencyHistogram) {
        significantDigits = histogram.significantDigits
        min = histogram.exactRange?.min
        max = histogram.exactRange?.max
        pairs = histogram.recorded.flatMap { $0 }
    }

    /// An empty histogram of `significantDigits`.
    package init(significantDigits: Int) {
        self.significantDigits = significantDigits
        pairs = []
    }

    /// Whether nothing was recorded.
    package var isEmpty: Bool { pairs.isEmpty }

    /// The number of values.
    package var count: UInt64 { stride(from: 1, to: pairs.count, by: 2).reduce(0) { $0 + pairs[$1] } }

    /// Adds `other`'s values (through a live histogram: merging is rare, reports merge once).
    package mutating func merge(_ other: SparseLatency) {
        guard !other.isEmpty else { return }
        guard !isEmpty else {
            self = other
            return
        }
        var merged = LatencyHistogram(self)
        merged.merge(LatencyHistogram(other))
        self = SparseLatency(merged)
    }

    private enum CodingKeys: String, CodingKey { case unit, lowest, highest, significantDigits, min, max, buckets }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        significantDigits = try c.decodeIfPresent(Int.self, forKey: .significantDigits) ?? 3
        min = try c.decodeIfPresent(UInt64.self, forKey: .min)
        max = try c.decodeIfPresent(UInt64.self, forKey: .max)
        pairs = try c.decode([[UInt64]].self, forKey: .buckets).filter { $0.count == 2 }.flatMap { $0 }
        // Refused here, before a histogram is made of them: counts that overflow its total would trap.
        let highest = LatencyHistogram.highestTrackableMicroseconds
        for (key, extreme) in [(CodingKeys.min, min), (.max, max)] {
            if let extreme, extreme > highest {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: c, debugDescription: "\(extreme) µs is beyond a histogram's range, 0 to \(highest) µs (1 h)")
            }
        }
        var total: UInt64 = 0
        for index in stride(from: 1, to: pairs.count, by: 2) {
            let (sum, overflow) = total.addingReportingOverflow(pairs[index])
            guard !overflow, sum <= RunReport.maximumCount else {
                throw DecodingError.dataCorruptedError(
                    forKey: .buckets, in: c, debugDescription: "the bucket counts add up to more than \(RunReport.maximumCount) (2^53)")
            }
            total = sum
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("us", forKey: .unit)
        try c.encode(1, forKey: .lowest)
        try c.encode(LatencyHistogram.highestTrackableMicroseconds, forKey: .highest)
        try c.encode(significantDigits, forKey: .significantDigits)
        if let min, let max, !isEmpty {
            try c.encode(min, forKey: .min)
            try c.encode(max, forKey: .max)
        }
        try c.encode(buckets, forKey: .buckets)
    }
}
