/// Percentiles of request latency in milliseconds.
public struct LatencySummary: Sendable, Codable, Equatable {
    public var p50: Double
    public var p90: Double
    public var p95: Double
    public var p99: Double
    public var max: Double
    public var mean: Double

    public init(_ histogram: LatencyHistogram) {
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
public struct ScenarioVerification: Sendable, Codable, Equatable {
    /// Whether there was anything to check: features added or deleted, outcomes to resolve, or a problem found.
    public var checkedAnything: Bool {
        reportedAdded > 0 || deletedStillPresent != nil || (unknownOutcomes ?? 0) > 0 || layerCountBefore != nil || !passed
    }

    public init(reportedAdded: Int, foundByObjectId: Int, duplicateObjectIds: Int, editsInFailedRequests: Int) {
        self.reportedAdded = reportedAdded
        self.foundByObjectId = foundByObjectId
        self.duplicateObjectIds = duplicateObjectIds
        self.editsInFailedRequests = editsInFailedRequests
        passed = true
        notes = []
    }

    /// Adds the service reported as successful.
    public var reportedAdded: Int
    /// Of those object IDs, how many a query found.
    public var foundByObjectId: Int
    /// Object IDs reported more than once (duplicated edits).
    public var duplicateObjectIds: Int
    /// Rows in the layer before and after (version-1 files, which run scenarios one at a time).
    public var layerCountBefore: Int?
    public var layerCountAfter: Int?
    /// Client GlobalIDs of adds reported applied, and how many rows a query found with them (more means duplicates).
    public var globalIdsReported: Int?
    public var globalIdsFound: Int?
    /// Adds whose outcome was unknown, and how many of them a query by GlobalID found applied.
    public var unknownOutcomes: Int?
    public var unknownFoundApplied: Int?
    /// Deleted object IDs a query still found.
    public var deletedStillPresent: Int?
    /// Edits sent in requests whose outcome is unknown (the request failed after it may have reached the server).
    public var editsInFailedRequests: Int
    public var passed: Bool
    public var notes: [String]
}

/// A ratio between two scenarios' metric, and its gate.
public struct ComparisonResult: Sendable, Codable, Equatable {
    public var baseline: String
    public var candidate: String
    public var metric: String
    public var baselineValue: Double
    public var candidateValue: Double
    public var ratio: Double
    public var minRatio: Double?
    public var passed: Bool
}

