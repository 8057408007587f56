import Synchronization

/// A counter shared between the edit path and the statistics.
final class FaultTally: Sendable {
    private let count = Atomic<Int>(0)
    /// A tally that counts everything this one does (the server's, under one request's).
    private let parent: FaultTally?

    init(parent: FaultTally? = nil) {
        self.parent = parent
    }

    func add(_ amount: Int) {
        count.add(amount, ordering: .relaxed)
        parent?.add(amount)
    }
    var value: Int { count.load(ordering: .relaxed) }
    func reset() { count.store(0, ordering: .relaxed) }
}

/// Counters of one server run, as `GET /arcgis/admin/stats` reports them.
struct FaultStatistics: Sendable, Hashable {
    /// Requests that reached the fault layer (service requests; not admin or token requests).
    var requests = 0
    /// Those requests by operation (see ``FaultDecider/operation(of:)``).
    var requestsByOperation: [String: Int] = [:]
    /// Request-level faults injected, by kind; `editFailure` counts failed edits, not requests.
    var faults: [FaultKind: Int] = [:]
    /// Requests that got added latency.
    var delayedRequests = 0
    /// Requests rejected for lack of a token (499).
    var tokenRequired = 0
    /// Requests rejected for an invalid or expired token (498).
    var invalidToken = 0
}

/// The live fault settings, their random stream and the counters, shared by every request of one server.
///
/// Isolation: a `Mutex` around small synchronous state (no actor: nothing suspends while it is held). Lifetime: one
/// per application.
final class FaultController: Sendable {
    private struct State {
        var decider: FaultDecider
        var statistics = FaultStatistics()
    }

    private let state: Mutex<State>
    private let editTally = FaultTally()

    /// A controller starting with `faults`.
    init(_ faults: LocalFeatureServerConfiguration.Faults) {
        state = Mutex(State(decider: FaultDecider(faults)))
    }

    /// The settings in force.
    var faults: LocalFeatureServerConfiguration.Faults { state.withLock { $0.decider.faults } }

    /// Replaces the settings and restarts the random stream from their seed; counters are kept.
    func replace(_ faults: LocalFeatureServerConfiguration.Faults) {
        state.withLock { $0.decider = FaultDecider(faults) }
    }

    /// Decides the faults of one request and counts it (and what was injected).
    func decide(path: String) -> FaultDecision {
        let operation = FaultDecider.operation(of: path)
        return state.withLock { state in
            var decision = state.decider.decide(path: path, operation: operation)
            state.statistics.requests += 1
            state.statistics.requestsByOperation[operation, default: 0] += 1
            if decision.latency > .zero { state.statistics.delayedRequests += 1 }
            if let action = decision.action { state.statistics.faults[action.kind, default: 0] += 1 }
            decision.editFailures?.tally = editTally
            return decision
        }
    }

    /// Counts a request rejected by token security (`code` 498 or 499).
    func countTokenRejection(code: Int) {
        state.withLock { state in
            if code == 499 { state.statistics.tokenRequired += 1 } else { state.statistics.invalidToken += 1 }
        }
    }

    /// The counters so far, failed edits included.
    var statistics: FaultStatistics {
        var statistics = state.withLock { $0.statistics }
        let failedEdits = editTally.value
        if failedEdits > 0 { statistics.faults[.editFailure] = failedEdits }
        return statistics
    }

    /// Sets every counter to zero.
    func resetStatistics() {
        state.withLock { $0.statistics = FaultStatistics() }
        editTally.reset()
    }
}
