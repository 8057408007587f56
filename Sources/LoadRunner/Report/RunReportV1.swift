/// A `report.json` of schema version 1, as earlier releases wrote it; read so old runs still load, and converted
/// to the current ``RunReport`` by ``RunReport/init(legacy:)``.
public struct RunReportV1: Sendable, Codable, Equatable {
    /// The schema's name, so other tools can recognise the file.
    public var schema = "featureload.run-report"
    /// Bumped on any incompatible change.
    public var schemaVersion = 1

    public var tool: RunReport.Tool
    public var plan: PlanV1
    public var target: RunReport.TargetInfo
    public var machine: RunReport.Machine
    /// ISO 8601 UTC.
    public var startedAt: String
    public var finishedAt: String
    public var scenarios: [ScenarioResultV1]
    public var comparisons: [ComparisonResult]
    public var verdict: RunReport.Verdict


    public struct PlanV1: Sendable, Codable, Equatable {
        public var name: String
        public var file: String
        public var description: String?
        public var seed: UInt64
        public var maxFailedEditRate: Double
    }



}

/// One scenario's configuration and measurements.
public struct ScenarioResultV1: Sendable, Codable, Equatable {
    public var name: String
    public var executor: String
    public var operation: String
    public var layer: Int
    public var vus: Int
    public var iterations: Int
    public var batchSize: Int
    public var iterationsStarted: Int
    public var stopReason: ScenarioStopReason
    public var durationSeconds: Double
    public var metrics: ScenarioMetricsV1
    public var requestsPerSecond: Double
    public var editsPerSecond: Double
    public var latencyMilliseconds: LatencySummary
    public var verification: ScenarioVerification?

    /// The value of a named metric, for comparisons.
    public func value(of metric: String) -> Double? {
        switch metric {
        case "editsPerSecond": return editsPerSecond
        case "requestsPerSecond": return requestsPerSecond
        default: return nil
        }
    }
}

/// The counters of a version-1 scenario result.
public struct ScenarioMetricsV1: Sendable, Codable, Equatable {
    public var requests: Int = 0
    public var failedRequests: Int = 0
    public var editsSent: Int = 0
    public var editsSucceeded: Int = 0
    public var editsFailed: Int = 0
    public var editsUnknown: Int = 0
    public var editsAppliedByEarlierAttempt: Int = 0
    public var attempts: Int = 0
    public var retries: Int = 0
    public var backoffSeconds: Double = 0
    public var latency = LatencyHistogram()
    public var errors: [String: Int] = [:]
}
