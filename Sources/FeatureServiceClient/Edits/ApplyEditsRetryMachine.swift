package import FeatureModel

/// A retried applyEdits as a pure state machine: the driver reports what happened — an answer, a failed send with
/// the retry policy's decision, a check's finding — and the machine says what to do next.
///
/// It holds the state the exactly-once rule (``ExactlyOnceRule``) needs and nothing else: the edits still to send
/// (adds dropped once abandoned), whether an attempt may have applied them unsettled since, and what must be checked
/// before the next send. No I/O, clock or randomness: the same events give the same actions, so every path is
/// tested without a server, and a journal can record exactly these phases.
///
/// One machine serves every shape of applyEdits (``ExactlyOnceEdits``): one layer's edits (``LayerEdits``, driven by
/// ``FeatureLayerClient/applyEdits(_:options:retry:globalIdField:)``) and adds across a service's layers with their
/// files (``AtomicAdds``, driven by ``FeatureService/applyAtomically(_:retry:uploads:)``). The shape answers what the
/// rule reads of it (the adds' GlobalIDs, whether it rolls back, what is left without its adds); the decisions are
/// the machine's alone.
///
/// ```swift
/// var machine = ApplyEditsRetryMachine(edits: edits, options: options, globalIdField: "GlobalID")
/// var action = machine.start()
/// while true {
///     switch action {
///     case .send(let batch): action = /* POST applyEdits */ machine.answered(result)  // or machine.sendFailed(…)
///     case .check(let target): action = /* query */ machine.checked(found)            // or machine.checkFailed(…)
///     case .backoff(let delay): /* sleep */ action = machine.next()
///     case .finish(let finish): return /* outcome of finish */
///     case .giveUp(let reason): throw /* the last failure, with reason */
///     }
/// }
/// ```
package struct ApplyEditsRetryMachine<Edits: ExactlyOnceEdits>: Sendable {
    /// What the driver does next.
    package enum Action: Sendable, Hashable {
        /// POST applyEdits with `edits`, then report ``answered(_:)`` or ``sendFailed(mayHaveBeenApplied:serviceRejected:failure:decision:)``.
        case send(Edits)
        /// Query the service for `target`, then report ``checked(_:)`` or ``checkFailed(decision:)``.
        case check(ExactlyOnceRule.VerificationTarget)
        /// Sleep for the delay, then ask ``next()``.
        case backoff(Duration)
        /// Done: make the edits' outcomes from this.
        case finish(Finish)
        /// Stop: the last failure reported stands (a final check's own failure excepted), for this reason.
        case giveUp(RetryPolicy.StopReason)
    }

    /// How the edits ended.
    package enum Finish: Sendable, Hashable {
        /// The service answered the batch. `ambiguousBefore`: an earlier attempt (or the transport's own replay) may
        /// have applied it, so a 1022 on a keyed add or a 1011 on a delete means "applied earlier". `abandonedAdds`:
        /// why the adds were dropped from the batch, which makes each of them ``EditOutcome/Status/outcomeUnknown``.
        case answered(Edits.Answer, ambiguousBefore: Bool, abandonedAdds: String?)
        /// A check found the whole batch applied by an earlier attempt; the adds' objectIds by GlobalID.
        case appliedEarlier(adds: [String: Int64], objectIdField: String?)
        /// The edits' fate cannot be known, for this reason.
        case unknown(String)
    }

    /// What a check found.
    package enum Found: Sendable, Hashable {
        /// Every checked edit is in place; the adds' objectIds by GlobalID.
        case applied(adds: [String: Int64], objectIdField: String?)
        /// None is.
        case notApplied
        /// Some are: no single atomic batch explains it.
        case partial(found: Int, expected: Int)

        /// The finding for a check of `target` that found `count` keys (with the adds' objectIds, when it looked
        /// them up).
        package static func of(
            _ target: ExactlyOnceRule.VerificationTarget, count: Int, adds: [String: Int64] = [:], objectIdField: String? = nil
        ) -> Found {
            switch ExactlyOnceRule.verification(of: target, found: count) {
            case .applied: return .applied(adds: adds, objectIdField: objectIdField)
            case .notApplied: return .notApplied
            case .partial(let found, let expected): return .partial(found: found, expected: expected)
            }
        }
    }

    /// Where the machine stands, for a journal and for the driver.
    package enum Phase: Sendable, Hashable {
        /// Before ``start()``.
        case idle
        /// A send is out.
        case sending
        /// A check before the next send is out.
        case checking(ExactlyOnceRule.VerificationTarget)
        /// A last check after the policy gave up is out; its own failure is not reported.
        case finalCheck(ExactlyOnceRule.VerificationTarget, RetryPolicy.StopReason)
        /// Waiting out a backoff.
        case waiting
        /// Finished or given up.
        case done
    }

    package let edits: Edits
    /// How the edits are sent: what the rule reads beside them.
    package let settings: Edits.Settings
    /// The normalized GlobalIDs of the adds, or nil when some add has none (see ``ExactlyOnceEdits/addGlobalIds(_:)``).
    package let addIds: [String]?
    /// The edits the next send carries.
    package private(set) var pending: Edits
    /// Whether an attempt may have applied the edits without that being settled since.
    package private(set) var ambiguous = false
    /// Why the adds were dropped from the batch, once they were.
    package private(set) var abandonedAdds: String?
    /// What to check before the next send.
    package private(set) var pendingCheck: ExactlyOnceRule.VerificationTarget?
    package private(set) var phase = Phase.idle

    /// A machine for `edits`, sent as `settings` say.
    package init(edits: Edits, settings: Edits.Settings) {
        self.edits = edits
        self.settings = settings
        self.addIds = edits.addGlobalIds(settings)
        self.pending = edits
    }

    /// The first action: send the edits.
    package mutating func start() -> Action {
        phase = .sending
        return .send(pending)
    }

    /// After a backoff: check first when a check is due, else send again.
    package mutating func next() -> Action {
        if let target = pendingCheck {
            phase = .checking(target)
            return .check(target)
        }
        phase = .sending
        return .send(pending)
    }

    /// The service answered the send.
    package mutating func answered(_ result: Edits.Answer) -> Action {
        finish(.answered(result, ambiguousBefore: ambiguous || ExactlyOnceRule.transportMayReplay, abandonedAdds: abandonedAdds))
    }

    /// The send failed.
    /// - Parameters:
    ///   - mayHaveBeenApplied: Whether the request may have reached the service (a timeout after send, a dropped
    ///     connection, HTTP 500/502/504).
    ///   - serviceRejected: Whether the service answered with an ArcGIS error (with `rollbackOnFailure`, possibly
    ///     the rollback of a replay of a batch that was applied).
    ///   - failure: What failed, for the reason given to abandoned adds.
    ///   - decision: The retry policy's decision on this failure.
    package mutating func sendFailed(mayHaveBeenApplied: Bool, serviceRejected: Bool, failure: String, decision: RetryPolicy.Decision) -> Action {
        if mayHaveBeenApplied { ambiguous = true }
        switch decision {
        case .stop(let reason):
            // A rolled-back batch may be the transport's hidden replay of one that was applied: check before giving up.
            if ambiguous || (Edits.rollsBack(settings) && serviceRejected), case .verify(let target) = ambiguityAction() {
                phase = .finalCheck(target, reason)
                return .check(target)
            }
            return giveUp(reason)
        case .retry(let delay):
            if mayHaveBeenApplied {
                switch ambiguityAction() {
                case .replay:
                    break
                case .verify(let target):
                    pendingCheck = target
                case .abandonAdds(let replayRest):
                    let reason = pending.uncheckedReason(after: failure)
                    guard replayRest, let rest = pending.withoutAdds else { return finish(.unknown(reason)) }
                    abandonedAdds = reason
                    pending = rest
                }
            }
            phase = .waiting
            return .backoff(delay)
        }
    }

    /// A check answered.
    package mutating func checked(_ found: Found) -> Action {
        if case .finalCheck(_, let reason) = phase {
            if case .applied(let adds, let objectIdField) = found { return finish(.appliedEarlier(adds: adds, objectIdField: objectIdField)) }
            // Nothing there settles the doubt: the failure stands, and nothing was applied.
            if found == .notApplied { ambiguous = false }
            return giveUp(reason)
        }
        switch found {
        case .applied(let adds, let objectIdField):
            return finish(.appliedEarlier(adds: adds, objectIdField: objectIdField))
        case .notApplied:
            pendingCheck = nil
            ambiguous = false
            phase = .sending
            return .send(pending)
        case .partial(let found, let expected):
            return finish(.unknown("the service holds \(found) of the \(expected) checked edits, which no single atomic batch explains"))
        }
    }

    /// A check failed; `decision` is the retry policy's (checks count as attempts, so a service that keeps failing
    /// them cannot loop for ever).
    package mutating func checkFailed(decision: RetryPolicy.Decision) -> Action {
        if case .finalCheck(_, let reason) = phase { return giveUp(reason) }
        switch decision {
        case .retry(let delay):
            phase = .waiting
            return .backoff(delay)
        case .stop(let reason):
            return giveUp(reason)
        }
    }

    private func ambiguityAction() -> ExactlyOnceRule.AmbiguityAction {
        pending.actionAfterAmbiguousFailure(settings)
    }

    private mutating func finish(_ finish: Finish) -> Action {
        phase = .done
        return .finish(finish)
    }

    private mutating func giveUp(_ reason: RetryPolicy.StopReason) -> Action {
        phase = .done
        return .giveUp(reason)
    }
}

extension ApplyEditsRetryMachine where Edits == LayerEdits {
    /// A machine for one layer's `edits`, sent with `options`; adds carry their GlobalIDs in `globalIdField`.
    package init(edits: LayerEdits, options: ApplyEditsOptions, globalIdField: String) {
        self.init(edits: edits, settings: LayerEditSettings(options: options, globalIdField: globalIdField))
    }

    /// The applyEdits options.
    package var options: ApplyEditsOptions { settings.options }
    /// The layer's GlobalID field.
    package var globalIdField: String { settings.globalIdField }
}
