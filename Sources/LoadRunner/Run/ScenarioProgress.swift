import FeatureModel
import Synchronization

/// How far a running scenario has got: what a progress display shows, read from its recorder while it runs.
package struct ScenarioProgress: Sendable, Equatable, Codable {
    package var scenario: String
    /// Seconds since the scenario started.
    package var elapsed: Double
    /// The seconds the executor plans (its duration, or its stages), or nil when iterations decide the end.
    package var plannedSeconds: Double?
    /// The iterations the executor plans (shared or per-VU iterations), or nil when time decides the end.
    package var plannedIterations: Int?
    package var iterations: Int
    package var requests: Int
    package var failedRequests: Int
    package var edits: Int
    package var editsFailed: Int
    /// Iterations in flight now (busy VUs).
    package var inFlight: Int
    /// The 95th percentile of request latency so far, in milliseconds.
    package var p95Milliseconds: Double

    package init(
        scenario: String, elapsed: Double, plannedSeconds: Double?, plannedIterations: Int?, iterations: Int, requests: Int,
        failedRequests: Int, edits: Int, editsFailed: Int, inFlight: Int, p95Milliseconds: Double
    ) {
        self.scenario = scenario
        self.elapsed = elapsed
        self.plannedSeconds = plannedSeconds
        self.plannedIterations = plannedIterations
        self.iterations = iterations
        self.requests = requests
        self.failedRequests = failedRequests
        self.edits = edits
        self.editsFailed = editsFailed
        self.inFlight = inFlight
        self.p95Milliseconds = p95Milliseconds
    }
}

extension ScenarioSpec {
    /// What the executor plans: a length of time, or a number of iterations.
    var plannedWork: (seconds: Double?, iterations: Int?) {
        let owner = executor.owner
        if owner.endsAfterIterations { return (nil, owner.plannedIterations) }
        switch owner.schedule {
        case .closed(let closed): return (closed.end.seconds, nil)
        case .open(let open): return (open.end.seconds, nil)
        }
    }
}

extension ScenarioRecorder {
    /// The scenario's progress `elapsed` seconds after it started.
    package func progress(spec: ScenarioSpec, elapsed: Double) -> ScenarioProgress {
        let inFlight = max(0, currentInFlight)
        let planned = spec.plannedWork
        return state.withLock { state in
            var requests = 0
            var failed = 0
            var latency = LatencyHistogram()
            for stats in state.requests.values {
                requests += stats.count
                failed += stats.failed
                latency.merge(stats.duration)
            }
            return ScenarioProgress(
                scenario: scenario, elapsed: elapsed, plannedSeconds: planned.seconds, plannedIterations: planned.iterations,
                iterations: state.operations.reduce(0) { $0 + $1.iterations }, requests: requests, failedRequests: failed,
                edits: state.operations.reduce(0) { $0 + $1.editsApplied }, editsFailed: state.operations.reduce(0) { $0 + $1.editsFailed },
                inFlight: inFlight, p95Milliseconds: Double(latency.percentile(95)) / 1000)
        }
    }
}
