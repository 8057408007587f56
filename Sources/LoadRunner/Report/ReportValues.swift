/// Percentiles of request latency in milliseconds.
package struct LatencySummary: Sendable, Codable, Equatable {
    package var p50: Double
    package var p90: Double
    package var p95: Double
    package var p99: Double
    package var max: Double
    package var mean: Double

    package init(_ histogram: LatencyHistogram) {
        func ms(_ microseconds: UInt64) -> Double { Double(microseconds) / 1000 }
        p50 = ms(histogram.percentile(50))
        p90 = ms(histogram.percentile(90))
        p95 = ms(histogram.percentile(95))
        p99 = ms(histogram.percentile(99))
        max = ms(histogram.max)
        mean = histogram.mean / 1000
    }
}

/// The after-run check that the service holds exactly the features the scenario added.
package struct ScenarioVerification: Sendable, Codable, Equatable {
    /// Whether there was anything to check: features added or deleted, outcomes to resolve, or a problem found.
    var checkedAnything: Bool {
        reportedAdded > 0 || deletedStillPresent != nil || (unknownOutcomes ?? 0) > 0 || layerCountBefore != nil || !passed
    }

    package init(reportedAdded: Int, foundByObjectId: Int, duplicateObjectIds: Int, editsInFailedRequests: Int) {
        self.reportedAdded = reportedAdded
        self.foundByObjectId = foundByObjectId
        self.duplicateObjectIds = duplicateObjectIds
        self.editsInFailedRequests = editsInFailedRequests
        passed = true
        notes = []
    }

    /// Adds the service reported as successful.
    package var reportedAdded: Int
    /// Of those object IDs, how many a query found.
    package var foundByObjectId: Int
    /// Object IDs reported more than once (duplicated edits).
    package var duplicateObjectIds: Int
    /// Rows in the layer before and after (version-1 files, which run scenarios one at a time).
    package var layerCountBefore: Int?
    package var layerCountAfter: Int?
    /// Client GlobalIDs of adds reported applied, and how many rows a query found with them (more means duplicates).
    var globalIdsReported: Int?
    package var globalIdsFound: Int?
    /// Adds whose outcome was unknown, and how many of them a query by GlobalID found applied.
    var unknownOutcomes: Int?
    var unknownFoundApplied: Int?
    /// Deleted object IDs a query still found.
    var deletedStillPresent: Int?
    /// Edits sent in requests whose outcome is unknown (the request failed after it may have reached the server).
    var editsInFailedRequests: Int
    package var passed: Bool
    package var notes: [String]
}

/// A ratio between two scenarios' metric, and its gate.
package struct ComparisonResult: Sendable, Codable, Equatable {
    package var baseline: String
    package var candidate: String
    package var metric: String
    var baselineValue: Double
    package var candidateValue: Double
    package var ratio: Double
    package var minRatio: Double?
    package var passed: Bool
}
