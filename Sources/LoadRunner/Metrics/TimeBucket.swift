/// One second of one operation of one scenario: what happened in it, for charts over time.
///
/// `second` counts whole seconds from the run's start (`RunReport.startedAt`), so buckets of several generators
/// align by wall clock and merge by adding.
public struct TimeBucket: Sendable, Codable, Equatable {
    public var second: Int
    public var scenario: String
    public var operation: String
    public var requests = 0
    public var failedRequests = 0
    public var iterations = 0
    public var edits = 0
    public var editsFailed = 0
    public var droppedIterations = 0
    /// The most iterations in flight at once in this second (the busy VUs), for the scenario.
    public var busyVUs = 0
    /// HTTP request durations in this second (µs, 2 significant digits), in the sparse form (``LatencyHistogram``
    /// of it for percentiles).
    public var latency = SparseLatency(significantDigits: 2)

    public init(second: Int, scenario: String, operation: String) {
        self.second = second
        self.scenario = scenario
        self.operation = operation
    }

    /// Adds `other`'s counts (same second, scenario and operation).
    public mutating func merge(_ other: TimeBucket) {
        requests += other.requests
        failedRequests += other.failedRequests
        iterations += other.iterations
        edits += other.edits
        editsFailed += other.editsFailed
        droppedIterations += other.droppedIterations
        busyVUs = max(busyVUs, other.busyVUs)
        latency.merge(other.latency)
    }
}

/// One second of a scenario, or of one of its operations: its time-series buckets added up.
public struct SecondTotals: Sendable {
    public var second: Int
    public var requests = 0
    public var edits = 0
    /// Failed requests and failed edits.
    public var failed = 0
    public var latency = LatencyHistogram(significantDigits: 2)
}

extension RunReport {
    /// The time series of `scenario` (of one `operation` of it, when given), second by second in order.
    public func seconds(of scenario: String, operation: String? = nil) -> [SecondTotals] {
        var bySecond: [Int: SecondTotals] = [:]
        for bucket in timeSeries where bucket.scenario == scenario && (operation == nil || bucket.operation == operation) {
            var entry = bySecond[bucket.second] ?? SecondTotals(second: bucket.second)
            entry.requests += bucket.requests
            entry.edits += bucket.edits
            entry.failed += bucket.failedRequests + bucket.editsFailed
            entry.latency.merge(LatencyHistogram(bucket.latency))
            bySecond[bucket.second] = entry
        }
        return bySecond.keys.sorted().map { bySecond[$0]! }
    }
}
