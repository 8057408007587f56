/// Why a scenario stopped starting iterations.
public enum StopReason: String, Sendable, Codable, Hashable {
    /// Every planned iteration was started.
    case iterationsDone = "iterations"
    /// `maxDuration` ran out first.
    case maxDuration
    /// The run was cancelled (Ctrl-C).
    case cancelled
}

/// The pacing rule of the `shared-iterations` executor (k6): workers claim iteration numbers from one counter
/// until all are claimed or the time limit passes. Pure, so it is tested without I/O.
public struct SharedIterations: Sendable, Hashable {
    public var iterations: Int
    public var maxDuration: Duration

    public init(iterations: Int, maxDuration: Duration) {
        self.iterations = iterations
        self.maxDuration = maxDuration
    }

    public enum Decision: Sendable, Hashable {
        case start(iteration: Int)
        case stop(StopReason)
    }

    /// What a worker does after claiming iteration number `claimed` at `elapsed` since the scenario began.
    public func decide(claimed: Int, elapsed: Duration) -> Decision {
        if claimed >= iterations { return .stop(.iterationsDone) }
        if elapsed >= maxDuration { return .stop(.maxDuration) }
        return .start(iteration: claimed)
    }
}
