/// The saved result of one run (schema `featureload.run-report`, version 2): raw, exactly mergeable data only.
///
/// It holds counters, HDR histograms and a 1-second time series keyed by metric name and tags, plus the executor
/// settings and the verification. Percentiles, rates and throughput are computed from it by ``RunReport/view``
/// whenever a report is rendered, thresholds are evaluated or runs are compared, so reports of several generators
/// merge without loss. Version-1 files load through ``RunReport/decode(_:)``.
package struct RunReport: Sendable, Codable, Equatable {
    package var schema = "featureload.run-report"
    package var schemaVersion = RunReport.currentSchemaVersion
    package static let currentSchemaVersion = 2

    var tool: Tool
    package var plan: Plan
    package var target: TargetInfo
    package var machine: Machine
    /// ISO 8601 UTC.
    package var startedAt: String
    var finishedAt: String
    /// The run's start in milliseconds since 1970: second 0 of the time series.
    package var startedAtEpochMilliseconds: Int64
    package var durationSeconds: Double
    /// Which share of the whole test this process ran (`0:1` for all of it).
    package var segment = "0:1"
    /// The execution segment sequence the segment is one of (`0,1/4,1/2,3/4,1`), when the test was split; nil when
    /// this process ran the whole test.
    package var segmentSequence: String? = nil
    /// The command line's `--vus`, `--duration`, `--iterations` and `--scenario`: the run was not the file as
    /// written. Nil when none was given.
    package var overrides: ScenarioOverrides? = nil
    /// The run's own tags (`run --tag`), also on every metric series. Nil when none was given.
    package var tags: [String: String]? = nil
    /// The `${NAME}` variables the scenario file used, where each value came from, and the value unless the name
    /// looks secret. Nil when the file used none.
    package var variables: [VariableUse]? = nil
    package var scenarios: [ScenarioRecord]
    package var metrics: [MetricSeries]
    package var timeSeries: [TimeBucket]
    package var thresholds: [ThresholdResult]
    package var comparisons: [ComparisonResult]
    /// Warnings about how the run went (a VU pool that was too small, a generator that fell behind).
    package var notes: [String]
    package var verdict: Verdict

    struct Tool: Sendable, Codable, Equatable {
        package var name: String
        package var version: String
        package init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    package struct Plan: Sendable, Codable, Equatable {
        package var name: String
        package var file: String
        package var description: String?
        package var seed: UInt64
        package var maxFailedEditRate: Double
        /// The failed-request gate's limit (``ScenarioGates``); nil in reports from before it existed.
        package var maxFailedRequestRate: Double? = nil
        /// The scenario file's format version (1: scenarios in sequence; 2: concurrent).
        package var version: Int?
        /// Every scenario the file planned (warm-ups left out), so that one that never started — the run was
        /// interrupted or aborted first — still shows in the reports. Nil in reports from before it was recorded.
        package var scenarioNames: [String]? = nil
    }

    package struct TargetInfo: Sendable, Codable, Equatable {
        /// `local` or `live`.
        package var kind: String
        /// The feature service URL the load went to.
        package var serviceURL: String
        package var dataset: String?
        /// How the target ran, e.g. that an embedded server shared the load generator's cores.
        package var notes: [String]

        package init(kind: String, serviceURL: String, dataset: String? = nil, notes: [String] = []) {
            self.kind = kind
            self.serviceURL = serviceURL
            self.dataset = dataset
            self.notes = notes
        }
    }

    package struct Machine: Sendable, Codable, Equatable {
        package var hostname: String
        var operatingSystem: String
        package var cores: Int
        var memoryBytes: UInt64
    }

    package struct Verdict: Sendable, Codable, Equatable {
        package var passed: Bool
        /// Each failed threshold or gate, in words.
        package var failures: [String]
        package init(passed: Bool, failures: [String]) {
            self.passed = passed
            self.failures = failures
        }
    }
}

/// One scenario's settings and how it ended; its measurements are the run's metric series tagged with its name.
package struct ScenarioRecord: Sendable, Codable, Equatable {
    package var name: String
    package var executor: String
    /// The executor's settings as written (`vus`, `rate`, `stages`, …).
    package var settings: [String: String]
    package var operations: [OperationRecord]
    package var tags: [String: String]
    /// When the scenario started and how long it ran, in seconds from the run's start.
    package var startSeconds: Double
    package var durationSeconds: Double
    package var stopReason: ScenarioStopReason
    package var verification: ScenarioVerification?
    var warnings: [String]
    /// Failures by message, counted.
    package var errors: [String: Int] = [:]
    /// Seconds spent backing off between attempts.
    package var backoffSeconds: Double = 0
    /// Edits a retry found already applied by an earlier attempt (also counted in `edits`).
    package var editsAppliedByEarlierAttempt: Int = 0
    /// The sweep and value this scenario measured, when it is a point of a sweep.
    package var sweepPoint: SweepPoint?
}

/// An operation of a scenario's workload.
package struct OperationRecord: Sendable, Codable, Equatable {
    package var label: String
    package var kind: String
    package var layer: Int
    package var weight: Int
    /// Edits one iteration sends (batch size).
    package var editsPerIteration: Int
}

/// A threshold's outcome: each condition with the value measured.
package struct ThresholdResult: Sendable, Codable, Equatable {
    package var key: String
    package var condition: String
    /// The aggregate measured; nil when no sample matched (which fails the condition).
    package var value: Double?
    package var passed: Bool
    package var abortOnFail: Bool
}
