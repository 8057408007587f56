/// Why a scenario stopped starting iterations.
package enum ScenarioStopReason: String, Sendable, Codable, Hashable {
    /// Every planned iteration was started (`shared-iterations`, `per-vu-iterations`).
    case iterationsDone = "iterations"
    /// `maxDuration` ran out first.
    case maxDuration
    /// The executor's `duration` or stages ended (the usual end of time-based executors).
    case durationDone = "duration"
    /// Iterations still running at the end of `gracefulStop` were cancelled.
    case gracefulStop
    /// The run was cancelled (Ctrl-C, or a threshold with `abortOnFail`).
    case cancelled
}
