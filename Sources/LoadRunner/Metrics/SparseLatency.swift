/// A latency histogram in the form a report saves: the `[value, count]` pairs of its recorded buckets and the exact
/// smallest and largest values.
///
/// A few hundred bytes where a live ``LatencyHistogram`` of the same values holds tens of KiB of counters, so a run's
/// per-second time series is kept in this form once a second has passed, and a long run's report stays small in
/// memory. ``LatencyHistogram/init(_:)`` turns it back into a histogram with exactly the same percentiles.
public struct SparseLatency: Sendable, Codable, Equatable {
    public var significantDigits: Int
    /// Exact extremes in microseconds (nil when nothing was recorded or the file predates them).
    public var min: UInt64?
    public var max: UInt64?
    /// `[value, count]` of every recorded bucket, ascending; the value is the bucket's highest equivalent value.
    public var buckets: [[UInt64]]

    public init(_ histogram: LatencyHistogram) {
        significantDigits = histogram.significantDigits
        min = histogram.exactRange?.min
        max = histogram.exactRange?.max
        buckets = histogram.recorded
    }

    /// An empty histogram of `significantDigits`.
    public init(significantDigits: Int) {
        self.significantDigits = significantDigits
        buckets = []
    }

    /// The number of values.
    public var count: UInt64 { buckets.reduce(0) { $0 + ($1.count == 2 ? $1[1] : 0) } }

    /// Adds `other`'s values (through a live histogram: merging is rare, reports merge once).
    public mutating func merge(_ other: SparseLatency) {
        guard !other.buckets.isEmpty else { return }
        guard !buckets.isEmpty else {
            self = other
            return
        }
        var merged = LatencyHistogram(self)
        merged.merge(LatencyHistogram(other))
        self = SparseLatency(merged)
    }

    private enum CodingKeys: String, CodingKey { case unit, lowest, highest, significantDigits, min, max, buckets }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        significantDigits = try c.decodeIfPresent(Int.self, forKey: .significantDigits) ?? 3
        min = try c.decodeIfPresent(UInt64.self, forKey: .min)
        max = try c.decodeIfPresent(UInt64.self, forKey: .max)
        buckets = try c.decode([[UInt64]].self, forKey: .buckets)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("us", forKey: .unit)
        try c.encode(1, forKey: .lowest)
        try c.encode(LatencyHistogram.highestTrackableMicroseconds, forKey: .highest)
        try c.encode(significantDigits, forKey: .significantDigits)
        if let min, let max, !buckets.isEmpty {
            try c.encode(min, forKey: .min)
            try c.encode(max, forKey: .max)
        }
        try c.encode(buckets, forKey: .buckets)
    }
}
