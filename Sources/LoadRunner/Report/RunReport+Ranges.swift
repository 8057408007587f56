extension RunReport {
    /// The most a report's counts may add up to, all of them together: 2^53, the largest whole number a `Double`
    /// holds exactly. Far beyond any run (a million requests a second for 285 years), and small enough that any sum
    /// or merge of a report's counts, and their conversion to `Int`, stays exact and cannot overflow.
    static let maximumCount: UInt64 = 1 << 53

    /// The longest time a report may speak of, in seconds (about 31 years): durations, offsets and time-series
    /// seconds beyond it are corrupt.
    static let maximumSeconds = 1_000_000_000.0

    /// The latest start a report may have, in milliseconds since 1970: the last millisecond of the year 9999.
    static let maximumEpochMilliseconds: Int64 = 253_402_300_799_999

    /// Checks that every number of the report is one that reports, thresholds and merges can add up and convert
    /// without overflow: counts whole or fractional but not negative, adding up to at most ``maximumCount``;
    /// seconds and offsets within ``maximumSeconds``; histogram extremes within the trackable range.
    ///
    /// ``decode(_:)`` calls it, so a corrupt or hostile `report.json` is refused where it is read and no renderer
    /// ever sees an out-of-range value.
    /// - Returns: what all the report's counts add up to (at most ``maximumCount``), which a merge adds up across
    ///   its reports.
    /// - Throws: ``LoadRunnerError`` naming the first field out of range, its value and the range.
    @discardableResult
    func checkRanges() throws(LoadRunnerError) -> UInt64 {
        var check = RangeCheck()
        try check.epoch(startedAtEpochMilliseconds, "startedAtEpochMilliseconds")
        try check.seconds(durationSeconds, "durationSeconds")
        for (index, series) in metrics.enumerated() {
            let name = "metrics[\(index)] (\(series.metric.rawValue))"
            try check.count(series.count, "\(name).count")
            if let passes = series.passes { try check.count(passes, "\(name).passes") }
            for (field, gauge) in [("value", series.value), ("min", series.min), ("max", series.max)] {
                if let gauge { try check.gauge(gauge, "\(name).\(field)") }
            }
            if let histogram = series.histogram { try check.histogram(histogram.count, "\(name).histogram") }
        }
        for (index, bucket) in timeSeries.enumerated() {
            let name = "timeSeries[\(index)]"
            try check.seconds(Double(bucket.second), "\(name).second")
            let counts = [
                ("requests", bucket.requests), ("failedRequests", bucket.failedRequests), ("iterations", bucket.iterations),
                ("edits", bucket.edits), ("editsFailed", bucket.editsFailed), ("droppedIterations", bucket.droppedIterations),
                ("busyVUs", bucket.busyVUs),
            ]
            for (field, value) in counts { try check.count(value, "\(name).\(field)") }
            try check.histogram(bucket.latency.count, "\(name).latency")
        }
        for (index, record) in scenarios.enumerated() {
            try check.scenario(record, "scenarios[\(index)] (\(record.name))")
        }
        for (index, threshold) in thresholds.enumerated() {
            if let value = threshold.value { try check.finite(value, "thresholds[\(index)].value") }
        }
        for (index, comparison) in comparisons.enumerated() {
            // Rates and their ratio: charts scale bars by them.
            let values = [
                ("baselineValue", comparison.baselineValue), ("candidateValue", comparison.candidateValue), ("ratio", comparison.ratio),
                ("minRatio", comparison.minRatio ?? 0),
            ]
            for (key, value) in values { try check.gauge(value, "comparisons[\(index)].\(key)") }
        }
        return check.total
    }
}

/// Adds up a report's counts while checking each number's range; the first one out of range is the error.
private struct RangeCheck {
    private(set) var total: UInt64 = 0

    mutating func count(_ value: Double, _ field: @autoclosure () -> String) throws(LoadRunnerError) {
        guard value.isFinite, value >= 0, value <= Double(RunReport.maximumCount) else { throw outOfRange(field(), "\(value)") }
        try add(UInt64(value.rounded(.up)), field())
    }

    mutating func count(_ value: Int, _ field: @autoclosure () -> String) throws(LoadRunnerError) {
        guard value >= 0, UInt64(value) <= RunReport.maximumCount else { throw outOfRange(field(), "\(value)") }
        try add(UInt64(value), field())
    }

    mutating func count(_ value: Int?, _ field: @autoclosure () -> String) throws(LoadRunnerError) {
        if let value { try count(value, field()) }
    }

    /// A gauge (VUs) or a rate: not added up across a report, but merged reports add gauges, so bounded like a count.
    func gauge(_ value: Double, _ field: @autoclosure () -> String) throws(LoadRunnerError) {
        guard value.isFinite, value >= 0, value <= Double(RunReport.maximumCount) else {
            throw LoadRunnerError("\(field()) is \(value); a report's VUs and rates are 0 to \(RunReport.maximumCount) (2^53): the file is corrupt")
        }
    }

    func finite(_ value: Double, _ field: @autoclosure () -> String) throws(LoadRunnerError) {
        guard value.isFinite, value.magnitude <= Double(RunReport.maximumCount) else {
            throw LoadRunnerError(
                "\(field()) is \(value); a report's measured values are at most \(RunReport.maximumCount) in size: the file is corrupt")
        }
    }

    func seconds(_ value: Double, _ field: @autoclosure () -> String) throws(LoadRunnerError) {
        guard value.isFinite, value >= 0, value <= RunReport.maximumSeconds else {
            throw LoadRunnerError("\(field()) is \(value); a report's seconds are 0 to \(Int(RunReport.maximumSeconds)): the file is corrupt")
        }
    }

    func epoch(_ value: Int64, _ field: String) throws(LoadRunnerError) {
        guard value >= 0, value <= RunReport.maximumEpochMilliseconds else {
            throw LoadRunnerError(
                "\(field) is \(value); a report's start is 0 to \(RunReport.maximumEpochMilliseconds) (the year 9999): the file is corrupt")
        }
    }

    /// A histogram's counts, added up (its decoding checked their own sum and its extremes).
    mutating func histogram(_ count: UInt64, _ field: @autoclosure () -> String) throws(LoadRunnerError) {
        try add(count, field())
    }

    mutating func scenario(_ record: ScenarioRecord, _ name: String) throws(LoadRunnerError) {
        try seconds(record.startSeconds, "\(name).startSeconds")
        try seconds(record.durationSeconds, "\(name).durationSeconds")
        try seconds(record.backoffSeconds, "\(name).backoffSeconds")
        try count(record.editsAppliedByEarlierAttempt, "\(name).editsAppliedByEarlierAttempt")
        for (message, value) in record.errors.sorted(by: { $0.key < $1.key }) { try count(value, "\(name).errors[\"\(message)\"]") }
        for (index, operation) in record.operations.enumerated() {
            let field = "\(name).operations[\(index)]"
            for (key, value) in [("weight", operation.weight), ("editsPerIteration", operation.editsPerIteration)] {
                guard value >= 0, UInt64(value) <= RunReport.maximumCount else { throw outOfRange("\(field).\(key)", "\(value)") }
            }
        }
        guard let verification = record.verification else { return }
        let field = "\(name).verification"
        let counts: [(String, Int?)] = [
            ("reportedAdded", verification.reportedAdded), ("foundByObjectId", verification.foundByObjectId),
            ("duplicateObjectIds", verification.duplicateObjectIds), ("editsInFailedRequests", verification.editsInFailedRequests),
            ("globalIdsReported", verification.globalIdsReported), ("globalIdsFound", verification.globalIdsFound),
            ("unknownOutcomes", verification.unknownOutcomes), ("unknownFoundApplied", verification.unknownFoundApplied),
            ("deletedStillPresent", verification.deletedStillPresent), ("layerCountBefore", verification.layerCountBefore),
            ("layerCountAfter", verification.layerCountAfter),
        ]
        for (key, value) in counts { try count(value, "\(field).\(key)") }
    }

    private mutating func add(_ value: UInt64, _ field: @autoclosure () -> String) throws(LoadRunnerError) {
        let (sum, overflow) = total.addingReportingOverflow(value)
        guard !overflow, sum <= RunReport.maximumCount else {
            throw LoadRunnerError(
                "its counts add up to more than \(RunReport.maximumCount) (2^53) at \(field()), more than any run records: the file is corrupt")
        }
        total = sum
    }

    private func outOfRange(_ field: String, _ value: String) -> LoadRunnerError {
        LoadRunnerError("\(field) is \(value); a report's counts are 0 to \(RunReport.maximumCount) (2^53): the file is corrupt")
    }
}

extension RunReportV1 {
    /// Checks that a version-1 report's counters are in range before they are converted (and added up) into the
    /// current form.
    /// - Throws: ``LoadRunnerError`` naming the first counter out of range.
    func checkRanges() throws(LoadRunnerError) {
        for (index, scenario) in scenarios.enumerated() {
            let m = scenario.metrics
            let counts = [
                ("requests", m.requests), ("failedRequests", m.failedRequests), ("editsSent", m.editsSent), ("editsSucceeded", m.editsSucceeded),
                ("editsFailed", m.editsFailed), ("editsUnknown", m.editsUnknown), ("editsAppliedByEarlierAttempt", m.editsAppliedByEarlierAttempt),
                ("attempts", m.attempts), ("retries", m.retries),
            ]
            for (key, value) in counts + m.errors.sorted(by: { $0.key < $1.key }).map({ ("errors[\"\($0.key)\"]", $0.value) }) {
                guard value >= 0, UInt64(value) <= RunReport.maximumCount else {
                    throw LoadRunnerError(
                        "scenarios[\(index)].metrics.\(key) is \(value); a report's counts are 0 to \(RunReport.maximumCount) (2^53): the file is corrupt"
                    )
                }
            }
        }
    }
}
