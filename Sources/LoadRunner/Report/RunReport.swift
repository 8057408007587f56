/// The saved result of one run (schema `featureload.run-report`, version 2): raw, exactly mergeable data only.
///
/// It holds counters, HDR histograms and a 1-second time series keyed by metric name and tags, plus the executor
/// settings and the verification. Percentiles, rates and throughput are computed from it by ``RunReport/view``
/// whenever a report is rendered, thresholds are evaluated or runs are compared, so reports of several generators
/// merge without loss. Version-1 files load through ``RunReport/decode(_:)``.
public struct RunReport: Sendable, Codable, Equatable {
    public var schema = "featureload.run-report"
    public var schemaVersion = RunReport.currentSchemaVersion
    public static let currentSchemaVersion = 2

    public var tool: Tool
    public var plan: Plan
    public var target: TargetInfo
    public var machine: Machine
    /// ISO 8601 UTC.
    public var startedAt: String
    public var finishedAt: String
    /// The run's start in milliseconds since 1970: second 0 of the time series.
    public var startedAtEpochMilliseconds: Int64
    public var durationSeconds: Double
    /// Which share of the whole test this process ran (`0:1` for all of it).
    public var segment = "0:1"
    /// The execution segment sequence the segment is one of (`0,1/4,1/2,3/4,1`), when the test was split; nil when
    /// this process ran the whole test.
    public var segmentSequence: String? = nil
    public var scenarios: [ScenarioRecord]
    public var metrics: [MetricSeries]
    public var timeSeries: [TimeBucket]
    public var thresholds: [ThresholdResult]
    public var comparisons: [ComparisonResult]
    /// Warnings about how the run went (a VU pool that was too small, a generator that fell behind).
    public var notes: [String]
    public var verdict: Verdict

    public struct Tool: Sendable, Codable, Equatable {
        public var name: String
        public var version: String
        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    public struct Plan: Sendable, Codable, Equatable {
        public var name: String
        public var file: String
        public var description: String?
        public var seed: UInt64
        public var maxFailedEditRate: Double
        /// The scenario file's format version (1: scenarios in sequence; 2: concurrent).
        public var version: Int?
        /// Every scenario the file planned (warm-ups left out), so that one that never started — the run was
        /// interrupted or aborted first — still shows in the reports. Nil in reports from before it was recorded.
        public var scenarioNames: [String]? = nil
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
        /// Each failed threshold or gate, in words.
        public var failures: [String]
        public init(passed: Bool, failures: [String]) {
            self.passed = passed
            self.failures = failures
        }
    }
}

/// One scenario's settings and how it ended; its measurements are the run's metric series tagged with its name.
public struct ScenarioRecord: Sendable, Codable, Equatable {
    public var name: String
    public var executor: String
    /// The executor's settings as written (`vus`, `rate`, `stages`, …).
    public var settings: [String: String]
    public var operations: [OperationRecord]
    public var tags: [String: String]
    /// When the scenario started and how long it ran, in seconds from the run's start.
    public var startSeconds: Double
    public var durationSeconds: Double
    public var stopReason: ScenarioStopReason
    public var verification: ScenarioVerification?
    public var warnings: [String]
    /// Failures by message, counted.
    public var errors: [String: Int] = [:]
    /// Seconds spent backing off between attempts.
    public var backoffSeconds: Double = 0
    /// Edits a retry found already applied by an earlier attempt (also counted in `edits`).
    public var editsAppliedByEarlierAttempt: Int = 0
    /// The sweep and value this scenario measured, when it is a point of a sweep.
    public var sweepPoint: SweepPoint?
}

/// An operation of a scenario's workload.
public struct OperationRecord: Sendable, Codable, Equatable {
    public var label: String
    public var kind: String
    public var layer: Int
    public var weight: Int
    /// Edits one iteration sends (batch size).
    public var editsPerIteration: Int
}

/// A threshold's outcome: each condition with the value measured.
public struct ThresholdResult: Sendable, Codable, Equatable {
    public var key: String
    public var condition: String
    /// The aggregate measured; nil when no sample matched (which fails the condition).
    public var value: Double?
    public var passed: Bool
    public var abortOnFail: Bool
}
