/// The saved result of one run: versioned, self-describing, and mergeable (counters and sparse histograms).
///
/// `report.json` is this value; Markdown and the terminal summary are rendered from it, so a saved run can be
/// re-rendered or compared later without re-running.
public struct RunReport: Sendable, Codable, Equatable {
    /// The schema's name, so other tools can recognise the file.
    public var schema = "featureload.run-report"
    /// Bumped on any incompatible change.
    public var schemaVersion = RunReport.currentSchemaVersion
    public static let currentSchemaVersion = 1

    public var tool: Tool
    public var plan: Plan
    public var target: TargetInfo
    public var machine: Machine
    /// ISO 8601 UTC.
    public var startedAt: String
    public var finishedAt: String
    public var scenarios: [ScenarioResult]
    public var comparisons: [ComparisonResult]
    public var verdict: Verdict

    public struct Tool: Sendable, Codable, Equatable {
        public var name: String
        public var version: String
    }

    public struct Plan: Sendable, Codable, Equatable {
        public var name: String
        public var file: String
        public var description: String?
        public var seed: UInt64
        public var maxFailedEditRate: Double
    }

    public struct TargetInfo: Sendable, Codable, Equatable {
        /// `local` or `live`.
        public var kind: String
        /// The feature service URL the load went to.
        public var serviceURL: String
        public var dataset: String?
        /// How the target ran, e.g. that an embedded server shared the load generator's cores.
        public var notes: [String]

        public init(kind: String, serviceURL: String, dataset: String? = nil, notes: [String] = []) {
            self.kind = kind
            self.serviceURL = serviceURL
            self.dataset = dataset
            self.notes = notes
        }
    }

    public struct Machine: Sendable, Codable, Equatable {
        public var hostname: String
        public var operatingSystem: String
        public var cores: Int
        public var memoryBytes: UInt64
    }

    public struct Verdict: Sendable, Codable, Equatable {
        public var passed: Bool
        /// Each failed gate, in words.
        public var failures: [String]
    }
}

/// One scenario's configuration and measurements.
public struct ScenarioResult: Sendable, Codable, Equatable {
    public var name: String
    public var executor: String
    public var operation: String
    public var layer: Int
    public var vus: Int
    public var iterations: Int
    public var batchSize: Int
    public var iterationsStarted: Int
    public var stopReason: StopReason
    public var durationSeconds: Double
    public var metrics: ScenarioMetrics
    public var requestsPerSecond: Double
    public var editsPerSecond: Double
    public var latencyMilliseconds: LatencySummary
    public var verification: Verification?

    /// The value of a named metric, for comparisons.
    public func value(of metric: String) -> Double? {
        switch metric {
        case "editsPerSecond": return editsPerSecond
        case "requestsPerSecond": return requestsPerSecond
        default: return nil
        }
    }
}

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
public struct Verification: Sendable, Codable, Equatable {
    /// Adds the service reported as successful.
    public var reportedAdded: Int
    /// Of those object IDs, how many a query found.
    public var foundByObjectId: Int
    /// Object IDs reported more than once (duplicated edits).
    public var duplicateObjectIds: Int
    public var layerCountBefore: Int
    public var layerCountAfter: Int
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
