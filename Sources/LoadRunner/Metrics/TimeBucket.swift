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
