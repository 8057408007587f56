/// A `report.json` of schema version 1, as earlier releases wrote it; read so old runs still load, and converted
/// to the current ``RunReport`` by ``RunReport/init(legacy:)``.
package struct RunReportV1: Sendable, Codable, Equatable {
    /// The schema's name, so other tools can recognise the file.
    package var schema = "featureload.run-report"
    /// Bumped on any incompatible change.
    package var schemaVersion = 1

    var tool: RunReport.Tool
    package var plan: PlanV1
    package var target: RunReport.TargetInfo
    package var machine: RunReport.Machine
    /// ISO 8601 UTC.
    package var startedAt: String
    var finishedAt: String
    package var scenarios: [ScenarioResultV1]
    package var comparisons: [ComparisonResult]
    package var verdict: RunReport.Verdict

    package struct PlanV1: Sendable, Codable, Equatable {
        package var name: String
        package var file: String
        package var description: String?
        package var seed: UInt64
        package var maxFailedEditRate: Double
    }

}

/// One scenario's configuration and measurements.
package struct ScenarioResultV1: Sendable, Codable, Equatable {
    package var name: String
    package var executor: String
    package var operation: String
    package var layer: Int
    package var vus: Int
    package var iterations: Int
    package var batchSize: Int
    var iterationsStarted: Int
    package var stopReason: ScenarioStopReason
    package var durationSeconds: Double
    package var metrics: ScenarioMetricsV1
    package var requestsPerSecond: Double
    package var editsPerSecond: Double
    package var latencyMilliseconds: LatencySummary
    package var verification: ScenarioVerification?

    /// The value of a named metric, for comparisons.
    package func value(of metric: String) -> Double? {
        switch metric {
        case "editsPerSecond": return editsPerSecond
        case "requestsPerSecond": return requestsPerSecond
        default: return nil
        }
    }
}

/// The counters of a version-1 scenario result.
package struct ScenarioMetricsV1: Sendable, Codable, Equatable {
    package var requests: Int = 0
    package var failedRequests: Int = 0
    var editsSent: Int = 0
    var editsSucceeded: Int = 0
    package var editsFailed: Int = 0
    package var editsUnknown: Int = 0
    package var editsAppliedByEarlierAttempt: Int = 0
    package var attempts: Int = 0
    package var retries: Int = 0
    package var backoffSeconds: Double = 0
    package var latency = LatencyHistogram()
    package var errors: [String: Int] = [:]
}
