public import FeatureModel

/// What became of one edit of a retried applyEdits.
public struct EditOutcome: Sendable, Hashable {
    /// The fate of the edit.
    public enum Status: Sendable, Hashable {
        /// The attempt that succeeded applied it.
        case applied
        /// An earlier, ambiguous attempt applied it: the replay was rejected as a duplicate (add, code 1022) or found
        /// nothing left to do (delete, code 1011), or a check of the service found it applied.
        case appliedByEarlierAttempt
        /// The service rejected it; ``EditOutcome/result`` carries the ArcGIS code and description.
        case failed
        /// The client cannot tell whether it was applied and did not resend it, to avoid a duplicate;
        /// ``EditOutcome/reason`` says why.
        case outcomeUnknown
    }

    /// The fate of the edit.
    public var status: Status
    /// The service's result (objectId, globalId, error). For ``Status/appliedByEarlierAttempt`` adds the objectId
    /// was looked up by GlobalID; for ``Status/outcomeUnknown`` it is `nil`.
    public var result: EditResult?
    /// Why the outcome is unknown.
    public var reason: String?

    /// An outcome.
    package init(status: Status, result: EditResult?, reason: String? = nil) {
        self.status = status
        self.result = result
        self.reason = reason
    }

    /// Whether the edit is in the service now.
    public var isApplied: Bool { status == .applied || status == .appliedByEarlierAttempt }
}

/// The answer to ``FeatureLayerClient/applyEdits(_:options:retry:globalIdField:)``: one ``EditOutcome`` per edit,
/// in request order, and every attempt the client made.
public struct ApplyEditsOutcome: Sendable, Hashable {
    /// One outcome per add, in request order.
    public var adds: [EditOutcome]
    /// One outcome per update, in request order.
    public var updates: [EditOutcome]
    /// One outcome per delete, in request order.
    public var deletes: [EditOutcome]
    /// Every exchange made: the first try, retries, token replays and verification queries.
    public var attempts: [Attempt]
    /// The `editMoment` of the successful attempt, when asked for.
    public var editMoment: Int64?

    /// An outcome.
    package init(adds: [EditOutcome], updates: [EditOutcome], deletes: [EditOutcome], attempts: [Attempt], editMoment: Int64? = nil) {
        self.adds = adds
        self.updates = updates
        self.deletes = deletes
        self.attempts = attempts
        self.editMoment = editMoment
    }

    /// Every outcome: adds, then updates, then deletes.
    public var all: [EditOutcome] { adds + updates + deletes }

    /// The edits the service rejected, each with its ArcGIS code and description.
    public var failures: [EditResult] { all.compactMap { $0.status == .failed ? $0.result : nil } }

    /// The edits whose fate is unknown (never resent, to avoid duplicates).
    public var unknown: [EditOutcome] { all.filter { $0.status == .outcomeUnknown } }

    /// The results in the wire shape: applied edits (also by an earlier attempt) as `success: true`, failed ones
    /// with their error, and edits of unknown outcome as `success: false` without an error.
    public var result: ApplyEditsResult {
        func results(_ outcomes: [EditOutcome]) -> [EditResult] {
            outcomes.map { outcome in
                switch outcome.status {
                case .applied, .appliedByEarlierAttempt:
                    var result = outcome.result ?? EditResult(objectId: nil, success: true)
                    result.success = true
                    result.error = nil
                    return result
                case .failed: return outcome.result ?? EditResult(objectId: nil, success: false)
                case .outcomeUnknown: return EditResult(objectId: nil, success: false)
                }
            }
        }
        return ApplyEditsResult(
            addResults: results(adds), updateResults: results(updates), deleteResults: results(deletes), editMoment: editMoment)
    }
}
