public import FeatureModel

extension FeatureLayerClient {
    /// Applies adds, updates and deletes (`POST …/<id>/applyEdits`), retrying as `policy` allows without ever
    /// applying an edit twice, and returns what became of each edit together with every attempt.
    ///
    /// **The exactly-once rule** (details in ``ExactlyOnceRule``): an add is resent blindly only when it carries a
    /// client-assigned GlobalID and `options.useGlobalIds` is true; a replay the service rejects as a duplicate
    /// (1022) is recognised as applied by an earlier attempt, and its objectId is looked up by GlobalID. After an
    /// *ambiguous* failure (the request may have reached the service: a timeout after send, a dropped connection,
    /// HTTP 500/502/504), adds without GlobalIDs are not resent but reported as
    /// ``EditOutcome/Status/outcomeUnknown``; with `rollbackOnFailure=true` the client checks the service (by
    /// GlobalID, or by deleted id) before resending. Updates and deletes are idempotent by id; a replayed delete
    /// answering 1011 after an ambiguous attempt counts as applied.
    ///
    /// ```swift
    /// var generator = SplitMix64(seed: 7)
    /// let adds = features.map { feature in
    ///     var feature = feature
    ///     feature.attributes["GlobalID"] = .string(GlobalID.make(using: &generator))  // makes replays safe
    ///     return feature
    /// }
    /// let outcome = try await layer.applyEdits(
    ///     LayerEdits(adds: adds), options: .init(rollbackOnFailure: false, useGlobalIds: true), retry: RetryPolicy())
    /// metrics.count(retries: outcome.attempts.retryCount, backoff: outcome.attempts.totalBackoff)
    /// ```
    ///
    /// Cancelling the task stops at once, also during a backoff sleep; the edits may then have been applied or not.
    /// - Parameters:
    ///   - edits: The adds, updates and deletes.
    ///   - options: Rollback, GlobalID and edit-moment options.
    ///   - policy: When to retry; ``RetryPolicy/none`` makes one attempt (and still reports it).
    ///   - globalIdField: The layer's GlobalID field, where adds carry their GlobalIDs. Default `GlobalID`.
    /// - Returns: One outcome per edit, in request order, and every attempt.
    /// - Throws: ``FeatureServiceError`` when the policy gave up (with ``FeatureServiceError/attempts`` and
    ///   ``FeatureServiceError/stopReason``; ``FeatureServiceError/mayHaveBeenApplied`` tells whether an attempt
    ///   may have applied the edits) or the service rejected the batch; `CancellationError`.
    public func applyEdits(
        _ edits: LayerEdits, options: ApplyEditsOptions = .init(), retry policy: RetryPolicy, globalIdField: String = "GlobalID"
    ) async throws -> ApplyEditsOutcome {
        // Exactly-once needs every add as a Feature (its GlobalID, its own outcome): encoded adds are for the
        // single-attempt applyEdits.
        precondition(edits.encodedAdds == nil, "the retried applyEdits takes adds as Feature values, not encodedAdds")
        var run = RetriedEdits(
            client: self, edits: edits, options: options, policy: policy, globalIdField: globalIdField,
            log: AttemptLog(clock: exchange.startClock()))
        return try await run.run()
    }
}

/// The state of one retried applyEdits: what is still to be sent, whether an earlier attempt may have applied it,
/// and what must be checked before the next send. Owned by one task.
private struct RetriedEdits {
    let client: FeatureLayerClient
    let edits: LayerEdits
    let options: ApplyEditsOptions
    let policy: RetryPolicy
    let globalIdField: String
    var log: AttemptLog
    var jitter: JitterGenerator
    /// The edits the next send carries (adds dropped once abandoned).
    var pending: LayerEdits
    /// Whether an attempt may have applied the edits without that being settled since.
    var ambiguous = false
    /// Why the adds were abandoned, once they were.
    var abandonedAdds: String?
    /// What to check before the next send.
    var check: ExactlyOnceRule.VerificationTarget?
    let addIds: [String]?

    init(
        client: FeatureLayerClient, edits: LayerEdits, options: ApplyEditsOptions, policy: RetryPolicy, globalIdField: String,
        log: AttemptLog
    ) {
        self.client = client
        self.edits = edits
        self.options = options
        self.policy = policy
        self.globalIdField = globalIdField
        self.log = log
        self.jitter = policy.makeGenerator()
        self.pending = edits
        self.addIds = ExactlyOnceRule.addGlobalIds(edits, options: options, globalIdField: globalIdField)
    }

    var url: String { client.exchangeURL("applyEdits") }

    mutating func run() async throws -> ApplyEditsOutcome {
        let fields = client.applyEditsFields(edits, options: options)
        var request = HTTPRequest.form(url: url, fields: fields)
        while true {
            if let target = check {
                do {
                    switch try await verify(target) {
                    case .applied(let adds, let objectIdField):
                        return appliedEarlier(adds: adds, objectIdField: objectIdField)
                    case .notApplied:
                        check = nil
                        ambiguous = false
                    case .partial(let found, let expected):
                        return unknownOutcome(
                            "the service holds \(found) of the \(expected) checked edits, which no single atomic batch explains")
                    }
                } catch var error as FeatureServiceError {
                    // Checks count as attempts here, so a service that keeps failing them cannot loop forever.
                    let decision = log.decide(after: error, policy: policy, attempts: log.attempts.count, using: &jitter)
                    guard case .retry(let delay) = decision else {
                        error.attempts = log.attempts
                        error.stopReason = decision.stopReason
                        throw error
                    }
                    try await log.sleep(delay)
                    continue
                }
            }
            do {
                let response = try await client.exchange.send(request, operation: "applyEdits", purpose: .request, log: &log)
                let result = try FeatureServiceExchange.decode(response, as: ApplyEditsResult.self, operation: "applyEdits", url: url)
                return try await outcome(of: result)
            } catch var error as FeatureServiceError {
                let thisAmbiguous = error.attemptFailure.mayHaveBeenApplied
                if thisAmbiguous { ambiguous = true }
                let decision = log.decide(after: error, policy: policy, using: &jitter)
                guard case .retry(let delay) = decision else {
                    // A rolled-back batch may be the transport's hidden replay of one that was applied (see
                    // ExactlyOnceRule): check before reporting the failure.
                    let rolledBack = options.rollbackOnFailure && error.arcgisError != nil
                    if ambiguous || rolledBack, case .verify(let target) = action(), let settled = try? await verify(target),
                        case .applied(let adds, let objectIdField) = settled
                    {
                        return appliedEarlier(adds: adds, objectIdField: objectIdField)
                    }
                    error.attempts = log.attempts
                    error.stopReason = decision.stopReason
                    throw error
                }
                if thisAmbiguous {
                    switch action() {
                    case .replay: break
                    case .verify(let target): check = target
                    case .abandonAdds(let replayRest):
                        let reason =
                            "the adds carry no client-assigned GlobalIDs (with useGlobalIds=true), so after \(error.attemptFailure) "
                            + "they could be neither checked nor safely resent"
                        guard replayRest, pending.count > pending.adds.count else { return unknownOutcome(reason) }
                        abandonedAdds = reason
                        pending.adds = []
                        request = HTTPRequest.form(url: url, fields: client.applyEditsFields(pending, options: options))
                    }
                }
                try await log.sleep(delay)
            }
        }
    }

    private func action() -> ExactlyOnceRule.AmbiguityAction {
        ExactlyOnceRule.actionAfterAmbiguousFailure(pending, options: options, globalIdField: globalIdField)
    }

    /// The outcome of a successful response, with objectIds looked up for adds applied by an earlier attempt.
    private mutating func outcome(of result: ApplyEditsResult) async throws -> ApplyEditsOutcome {
        // Every POST may already have been sent once by the transport itself (libcurl's replay on a fresh
        // connection), so a duplicate answer is read as "applied earlier" even on the first visible attempt.
        var (adds, updates, deletes) = ExactlyOnceRule.outcomes(
            of: result, ambiguousBefore: ambiguous || ExactlyOnceRule.transportMayReplay, keyedAdds: addIds != nil)
        if let abandonedAdds {
            adds = edits.adds.map { _ in EditOutcome(status: .outcomeUnknown, result: nil, reason: abandonedAdds) }
        } else if let addIds, adds.contains(where: { $0.status == .appliedByEarlierAttempt }) {
            let wanted = adds.indices.filter { adds[$0].status == .appliedByEarlierAttempt && $0 < addIds.count }.map { addIds[$0] }
            let found = (try? await lookUp(globalIds: wanted))?.objectIds ?? [:]
            for index in adds.indices where adds[index].status == .appliedByEarlierAttempt && index < addIds.count {
                let globalId = addIds[index]
                adds[index].result = EditResult(objectId: found[globalId], globalId: globalId, success: true)
            }
        }
        return ApplyEditsOutcome(adds: adds, updates: updates, deletes: deletes, attempts: log.attempts, editMoment: result.editMoment)
    }

    private enum Settled {
        case applied(adds: [String: Int64], objectIdField: String?)
        case notApplied
        case partial(found: Int, expected: Int)
    }

    /// Asks the service whether `target` is in place.
    private mutating func verify(_ target: ExactlyOnceRule.VerificationTarget) async throws -> Settled {
        let found: Int
        var adds: [String: Int64] = [:]
        var objectIdField: String?
        switch target {
        case .addedGlobalIds(let ids):
            let lookup = try await lookUp(globalIds: ids)
            (adds, objectIdField, found) = (lookup.objectIds, lookup.objectIdField, lookup.objectIds.count)
        case .deletedObjectIds(let ids):
            found = try await count(FeatureQuery(objectIds: ids, outFields: [], returnGeometry: false, returnCountOnly: true))
        case .deletedGlobalIds(let ids):
            found = try await count(
                FeatureQuery(whereClause: RelationshipKey.whereIn(globalIdField, ids.map(JSONValue.string)), outFields: [], returnGeometry: false, returnCountOnly: true))
        }
        switch ExactlyOnceRule.verification(of: target, found: found) {
        case .applied: return .applied(adds: adds, objectIdField: objectIdField)
        case .notApplied: return .notApplied
        case .partial(let found, let expected): return .partial(found: found, expected: expected)
        }
    }

    private mutating func count(_ query: FeatureQuery) async throws -> Int {
        let request = HTTPRequest.form(url: client.exchangeURL("query"), fields: query.formFields)
        let response = try await client.exchange.send(request, operation: "applyEdits check", purpose: .verification, log: &log)
        return try FeatureServiceExchange.decode(response, as: CountResult.self, operation: "applyEdits check", url: request.url).count
    }

    /// The objectIds of the rows with `globalIds`, queried in chunks of 500.
    private mutating func lookUp(globalIds: [String]) async throws -> (objectIds: [String: Int64], objectIdField: String?) {
        var objectIds: [String: Int64] = [:]
        var objectIdField: String?
        var start = 0
        while start < globalIds.count {
            let chunk = Array(globalIds[start..<min(start + 500, globalIds.count)])
            start += chunk.count
            let query = FeatureQuery(whereClause: RelationshipKey.whereIn(globalIdField, chunk.map(JSONValue.string)), outFields: ["*"], returnGeometry: false)
            let request = HTTPRequest.form(url: client.exchangeURL("query"), fields: query.formFields)
            let response = try await client.exchange.send(request, operation: "applyEdits check", purpose: .verification, log: &log)
            let set = try FeatureServiceExchange.decode(response, as: FeatureSet.self, operation: "applyEdits check", url: request.url)
            let oidField = set.objectIdFieldName ?? "OBJECTID"
            objectIdField = oidField
            for feature in set.features {
                guard let text = feature[attribute: set.globalIdFieldName ?? globalIdField]?.stringValue,
                    let globalId = GlobalID.normalized(text), let objectId = feature[attribute: oidField]?.intValue
                else { continue }
                objectIds[globalId] = objectId
            }
        }
        return (objectIds, objectIdField)
    }

    /// Every edit applied by an earlier attempt (a verified atomic batch).
    private func appliedEarlier(adds found: [String: Int64], objectIdField: String?) -> ApplyEditsOutcome {
        let adds = edits.adds.indices.map { index -> EditOutcome in
            let globalId = addIds.flatMap { index < $0.count ? $0[index] : nil }
            return EditOutcome(
                status: .appliedByEarlierAttempt,
                result: EditResult(objectId: globalId.flatMap { found[$0] }, globalId: globalId, success: true))
        }
        let oidField = objectIdField ?? "OBJECTID"
        let updates = edits.updates.map { update in
            EditOutcome(
                status: .appliedByEarlierAttempt,
                result: EditResult(
                    objectId: update[attribute: oidField]?.intValue,
                    globalId: update[attribute: globalIdField]?.stringValue.flatMap(GlobalID.normalized), success: true))
        }
        let deletes =
            edits.deletes.isEmpty
            ? edits.deleteGlobalIds.map {
                EditOutcome(status: .appliedByEarlierAttempt, result: EditResult(objectId: nil, globalId: GlobalID.normalized($0), success: true))
            }
            : edits.deletes.map { EditOutcome(status: .appliedByEarlierAttempt, result: EditResult(objectId: $0, success: true)) }
        return ApplyEditsOutcome(adds: adds, updates: updates, deletes: deletes, attempts: log.attempts)
    }

    /// Every edit of unknown fate, for `reason`.
    private func unknownOutcome(_ reason: String) -> ApplyEditsOutcome {
        let unknown = EditOutcome(status: .outcomeUnknown, result: nil, reason: reason)
        let deleteCount = edits.deletes.isEmpty ? edits.deleteGlobalIds.count : edits.deletes.count
        return ApplyEditsOutcome(
            adds: Array(repeating: unknown, count: edits.adds.count), updates: Array(repeating: unknown, count: edits.updates.count),
            deletes: Array(repeating: unknown, count: deleteCount), attempts: log.attempts)
    }
}

extension RetryPolicy.Decision {
    /// The reason, when the decision is to stop.
    var stopReason: RetryPolicy.StopReason? {
        if case .stop(let reason) = self { return reason }
        return nil
    }
}
