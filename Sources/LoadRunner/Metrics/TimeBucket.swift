/// One second of one operation of one scenario: what happened in it, for charts over time.
///
/// `second` counts whole seconds from the run's start (`RunReport.startedAt`), so buckets of several generators
/// align by wall clock and merge by adding.
package struct TimeBucket: Sendable, Codable, Equatable {
    package var second: Int
    package var scenario: String
    package var operation: String
    package var requests = 0
    package var failedRequests = 0
    package var iterations = 0
    package var edits = 0
    package var editsFailed = 0
    package var droppedIterations = 0
    /// The most iterations in flight at once in this second (the busy VUs), for the scenario.
    package var busyVUs = 0
    /// HTTP request durations in this second (µs, 2 significant digits), in the sparse form (``LatencyHistogram``
    /// of it for percentiles).
    package var latency = SparseLatency(significantDigits: 2)

    package init(second: Int, scenario: String, operation: String) {
        self.second = second
        self.scenario = scenario
        self.operation = operation
    }

    /// Adds `other`'s counts (same second, scenario and operation).
    package mutating func merge(_ other: TimeBucket) {
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
package struct SecondTotals: Sendable {
    package var second: Int
    package var requests = 0
    package var edits = 0
    /// Failed requests and failed edits.
    package var failed = 0
    package var latency = LatencyHistogram(significantDigits: 2)
    /// How much of this second the scenario ran (0…1): less than 1 in its first and last second. Counts divided
    /// by it are rates; a chart of raw counts would show every run "collapsing" in its last, partial second.
    package var coverage: Double = 1
    /// Whether the scenario ran within this one second only.
    var isOnlySecond = false

    /// `count` as a rate per second over the part of the second the scenario ran; nil for an edge second of a
    /// longer run that it ran under a tenth of (too little to rate).
    package func rate(_ count: Int) -> Double? {
        coverage > 0 && (coverage >= 0.1 || isOnlySecond) ? Double(count) / coverage : nil
    }
}

extension RunReport {
    /// The time series of `scenario` (of one `operation` of it, when given), second by second in order.
    package func seconds(of scenario: String, operation: String? = nil) -> [SecondTotals] {
        var bySecond: [Int: SecondTotals] = [:]
        for bucket in timeSeries where bucket.scenario == scenario && (operation == nil || bucket.operation == operation) {
            var entry = bySecond[bucket.second] ?? SecondTotals(second: bucket.second)
            entry.requests += bucket.requests
            entry.edits += bucket.edits
            entry.failed += bucket.failedRequests + bucket.editsFailed
            entry.latency.merge(LatencyHistogram(bucket.latency))
            bySecond[bucket.second] = entry
        }
        let record = scenarios.first { $0.name == scenario }
        return bySecond.keys.sorted().map { second in
            var entry = bySecond[second]!
            entry.isOnlySecond = bySecond.count == 1
            if let record {
                let from = max(Double(second), record.startSeconds)
                let to = min(Double(second + 1), record.startSeconds + record.durationSeconds)
                entry.coverage = min(1, max(0, to - from))
            }
            return entry
        }
    }
}
