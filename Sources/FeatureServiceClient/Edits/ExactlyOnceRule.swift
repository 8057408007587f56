package import FeatureModel

/// The exactly-once rule of retried applyEdits, as pure decisions (tested without I/O).
///
/// - **Adds** are resent blindly only when every add carries a client-assigned GlobalID and `useGlobalIds=true`:
///   a replay of an add that the service already applied is rejected as a duplicate (code 1022), which the client
///   recognises as "applied by an earlier attempt" and answers with the objectId it looks up by GlobalID.
/// - **Adds without GlobalIDs** are never resent after an ambiguous failure (one that may have reached the service:
///   a timeout after send, a dropped connection, HTTP 500/502/504): there is no key to check them by, so they are
///   reported as ``EditOutcome/Status/outcomeUnknown`` with the reason. With `rollbackOnFailure=false` the updates
///   and deletes of the batch are still retried; with `rollbackOnFailure=true` the whole batch is unknown.
/// - **Updates and deletes** are idempotent by id: a replayed update writes the same values; a replayed delete that
///   answers 1011 (object missing) after an ambiguous attempt counts as applied by it.
/// - With `rollbackOnFailure=true` a replay of an applied batch would be rolled back as a whole (one duplicate
///   fails all), so after an ambiguous failure the client first **checks the service**: it queries the adds'
///   GlobalIDs (or, without adds, the deleted ids). All there (deletes: all gone) → applied by the earlier attempt;
///   none → resend; some → ``EditOutcome/Status/outcomeUnknown``.
/// - **The transport may replay too.** libcurl resends a request once on a fresh connection when a reused
///   keep-alive connection closes before any answer byte ("Connection died, retrying a fresh connect"). A server
///   that commits and then drops the connection therefore receives the request twice, and the client sees only
///   the second answer. So every POST is treated as possibly replayed (``transportMayReplay``): a 1022 on a
///   client-assigned GlobalID and a 1011 on a delete count as applied earlier even on the first visible attempt
///   (assign fresh GlobalIDs with `GlobalID.make`, so a 1022 can only mean "this very add"), and a batch rolled
///   back under `rollbackOnFailure=true` is checked by GlobalID before the failure is reported. Adds without
///   GlobalIDs can be duplicated by that replay and nothing above the transport can tell; send GlobalIDs.
/// - Failures that certainly had no effect (connection refused, 429, 503, ArcGIS error bodies) are retried as
///   the ``RetryPolicy`` allows, whatever the edits.
/// - **Service-level adds** (``AtomicAdds``: adds across layers and their files in one request, always with
///   `rollbackOnFailure=true`) follow the same rules through the same ``ApplyEditsRetryMachine``: each layer's adds
///   are keyed in that layer's GlobalID field and checked by it; a per-edit failure in the answer is a rolled-back
///   batch, checked before it is reported; files sent without adds have no key, so after an ambiguous failure their
///   fate is unknown.
package enum ExactlyOnceRule {
    /// What the retry loop does after an ambiguous failure.
    package enum AmbiguityAction: Sendable, Hashable {
        /// Resend the same edits; interpret 1022 adds and 1011 deletes as applied earlier.
        case replay
        /// Ask the service first (rollbackOnFailure=true): query the adds' GlobalIDs, or the deleted ids.
        case verify(VerificationTarget)
        /// Stop resending adds (no GlobalIDs): they become `outcomeUnknown`. `replayRest` tells whether the
        /// updates and deletes go on (rollbackOnFailure=false) or share the adds' unknown fate.
        case abandonAdds(replayRest: Bool)
    }

    /// What a verification query looks for.
    package enum VerificationTarget: Sendable, Hashable {
        /// The adds' GlobalIDs (normalized), expected present.
        case addedGlobalIds([String])
        /// The deleted objectIds, expected gone.
        case deletedObjectIds([Int64])
        /// The deleted GlobalIDs, expected gone.
        case deletedGlobalIds([String])
    }

    /// What a verification found.
    package enum Verification: Sendable, Hashable {
        /// Every edit is in place: the earlier attempt applied the batch.
        case applied
        /// None is: the batch was not applied; resend it.
        case notApplied
        /// Some are: the service's state does not match one atomic batch.
        case partial(found: Int, expected: Int)
    }

    /// The normalized GlobalID of every add, or `nil` when an add has none (or `useGlobalIds` is off).
    package static func addGlobalIds(_ edits: LayerEdits, options: ApplyEditsOptions, globalIdField: String) -> [String]? {
        guard options.useGlobalIds else { return edits.addCount == 0 ? [] : nil }
        var ids: [String] = []
        ids.reserveCapacity(edits.addCount)
        for add in edits.adds {
            guard let text = add[attribute: globalIdField]?.stringValue, let id = GlobalID.normalized(text) else { return nil }
            ids.append(id)
        }
        if let encoded = edits.encodedAdds, encoded.count > 0 {
            // Encoded adds are keyed only by the GlobalIDs their maker vouches for.
            guard let encodedIds = encoded.globalIds, encodedIds.count == encoded.count else { return nil }
            ids += encodedIds
        }
        return ids
    }

    /// What to do after an ambiguous failure of `edits`.
    package static func actionAfterAmbiguousFailure(
        _ edits: LayerEdits, options: ApplyEditsOptions, globalIdField: String
    ) -> AmbiguityAction {
        guard let addIds = addGlobalIds(edits, options: options, globalIdField: globalIdField) else {
            return .abandonAdds(replayRest: !options.rollbackOnFailure)
        }
        guard options.rollbackOnFailure else { return .replay }
        if !addIds.isEmpty { return .verify(.addedGlobalIds(addIds)) }
        if !edits.deletes.isEmpty { return .verify(.deletedObjectIds(edits.deletes)) }
        if !edits.deleteGlobalIds.isEmpty { return .verify(.deletedGlobalIds(edits.deleteGlobalIds.compactMap(GlobalID.normalized))) }
        return .replay  // updates only
    }

    /// What a verification query that found `found` of the target's `expected` keys means.
    package static func verification(of target: VerificationTarget, found: Int) -> Verification {
        let expected: Int
        let wanted: Int
        switch target {
        case .addedGlobalIds(let ids): (expected, wanted) = (ids.count, ids.count)
        case .deletedObjectIds(let ids): (expected, wanted) = (ids.count, 0)
        case .deletedGlobalIds(let ids): (expected, wanted) = (ids.count, 0)
        }
        if found == wanted { return .applied }
        if found == expected - wanted { return .notApplied }
        return .partial(found: found, expected: expected)
    }

    /// The outcomes of a response to `edits`, where `ambiguousBefore` tells whether an earlier attempt may have
    /// applied them: then a 1022 on a GlobalID add and a 1011 on a delete mean "applied by an earlier attempt".
    package static func outcomes(
        of result: ApplyEditsResult, ambiguousBefore: Bool, keyedAdds: Bool
    ) -> (adds: [EditOutcome], updates: [EditOutcome], deletes: [EditOutcome]) {
        func outcome(_ result: EditResult, earlierCode: Int?) -> EditOutcome {
            if result.success { return EditOutcome(status: .applied, result: result) }
            if ambiguousBefore, let earlierCode, result.error?.code == earlierCode {
                return EditOutcome(status: .appliedByEarlierAttempt, result: result)
            }
            return EditOutcome(status: .failed, result: result)
        }
        return (
            result.addResults.map { outcome($0, earlierCode: keyedAdds ? duplicateCode : nil) },
            result.updateResults.map { outcome($0, earlierCode: nil) },
            result.deleteResults.map { outcome($0, earlierCode: objectMissingCode) }
        )
    }

    /// Why adds without client-assigned GlobalIDs are neither checked nor resent after `failure`, an ambiguous one.
    static func unkeyedAddsReason(after failure: String) -> String {
        "the adds carry no client-assigned GlobalIDs (with useGlobalIds=true), so after \(failure) they could be neither checked nor safely resent"
    }

    /// Whether any POST may already have been sent once by the transport itself; true for libcurl (see above).
    static let transportMayReplay = true

    /// ArcGIS "unique constraint violation": what a replayed add with a kept GlobalID answers.
    static let duplicateCode = 1022
    /// ArcGIS "object is missing": what a replayed delete answers.
    static let objectMissingCode = 1011
}
