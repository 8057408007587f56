import FeatureModel
import FeatureServiceClient

/// `relate`, `unrelate` or `move` one existing feature through a relationship, validated and applied as an app on
/// the ArcGIS Maps SDKs does it.
///
/// Each iteration takes a fresh table (its own pending edits), reads the feature and its partners, makes the change
/// in memory (``ServiceFeatureTable/relate(_:to:relationshipId:)`` and friends: a foreign key for one-to-one and
/// one-to-many, a relationship-table row for many-to-many), and — with `validate` — checks the relationship's
/// cardinality and orphan rules first. A change that would break them is not sent: it counts as a failed edit whose
/// reason names the violation, as an app that honours the constraints would refuse it. Every request (the reads,
/// the validation's look-ups, the applyEdits) is measured under the operation's tag.
struct RelateOperation: LoadOperation {
    let spec: OperationSpec
    let settings: RelateSettings
    let environment: OperationEnvironment
    /// The other side of the relationship: its table and a pool of its existing object IDs.
    let partnerTable: Int
    let partners: IdPool

    func perform(index: Int, sample: inout IterationSample) async {
        // The feature is taken out of the pool while this iteration reads and changes it, so two VUs never change
        // the same feature at once (the second would find its relation changed between its reads and be refused).
        // It is borrowed past the deletes' reserve (a small table has fewer features than the reserve); only when
        // every feature is out (fewer features than VUs) does an iteration share one, and may then be refused.
        let taken = environment.pool.borrow()
        guard let objectId = taken ?? environment.pool.sample(1).first else {
            sample.fail(edits: 1, "no existing feature to \(settings.action.rawValue); seed some with `setup: { seed: N }`")
            return
        }
        await change(objectId, sample: &sample)
        if let taken { environment.pool.add([taken]) }
    }

    private func change(_ objectId: Int64, sample: inout IterationSample) async {
        let relationship = settings.relationshipId
        var sending = false
        do {
            let table = try await environment.service.table(id: spec.layer)
            let other = try await environment.service.table(id: partnerTable)
            guard let feature = try await Self.feature(objectId, in: table) else {
                sample.fail(edits: 1, "a feature of layer \(spec.layer) in the pool is gone (deleted by another scenario?)")
                return
            }
            let changed: Feature
            switch settings.action {
            case .relate, .move:
                guard let partnerId = partners.sample(1).first, let partner = try await Self.feature(partnerId, in: other) else {
                    sample.fail(edits: 1, "no existing feature in layer \(partnerTable) to \(settings.action.rawValue) to")
                    return
                }
                if settings.action == .relate {
                    changed = try await table.relate(feature, to: partner, relationshipId: relationship)
                } else {
                    let current = try await table.queryRelated(to: feature, RelatedQueryParameters(relationshipId: relationship)).first
                    changed = try await table.move(feature, from: current, to: partner, relationshipId: relationship)
                }
            case .unrelate:
                guard let current = try await table.queryRelated(to: feature, RelatedQueryParameters(relationshipId: relationship)).first else {
                    // The SDK refuses to unrelate features that are not related: refused, not failed.
                    sample.editsInvalid += 1
                    sample.fail("not sent: the feature of layer \(spec.layer) had no related feature to unrelate")
                    return
                }
                changed = try await table.unrelate(feature, from: current, relationshipId: relationship)
            }
            if settings.validate {
                let violations = try await table.validateRelationshipConstraints(for: changed, considering: [other])
                    .filter { $0.relationshipId == relationship }
                if !violations.isEmpty {
                    await table.discardEdits()
                    // One error kind per rule and relationship (not per feature), so the report's error table stays readable.
                    let rules = Set(violations.map { "\($0.kind) violation of relationship \($0.relationshipId) '\($0.relationshipName)'" })
                    sample.editsInvalid += 1
                    sample.fail("not sent: " + rules.sorted().joined(separator: "; "))
                    return
                }
            }
            sending = true
            let results = try await table.applyEdits(rollbackOnFailure: settings.rollbackOnFailure)
            guard !results.isEmpty else {
                // The partner drawn is the one it already has: nothing to change, so nothing is sent or counted.
                sample.fail("nothing to apply: the feature was already \(settings.action == .unrelate ? "unrelated" : "related") so")
                return
            }
            if results.allSatisfy(\.isApplied) {
                sample.editsApplied += 1
            } else {
                let failed = results.first { !$0.isApplied }
                if failed?.status == .outcomeUnknown { sample.editsUnknown += 1 }
                sample.fail(failed?.error)
            }
        } catch {
            // Cut off while reading, nothing was sent; while applying, the change may still be applied.
            guard !Task.isCancelled else { return sending ? sample.cutOff(edits: 1) : () }
            // Reads and the table's validation throw before anything is sent; applyEdits reports in its results.
            sample.fail(edits: 1, String(describing: error))
        }
    }

    /// The feature with `objectId`, every field and its geometry; nil when it is gone.
    static func feature(_ objectId: Int64, in table: ServiceFeatureTable) async throws -> Feature? {
        try await table.queryAllFeatures(QueryParameters(objectIds: [objectId])).first
    }
}

extension IterationSample {
    /// Counts `edits` failed edits with a reason, when nothing was sent.
    mutating func fail(edits: Int, _ message: String) {
        editsFailed += edits
        fail(message)
    }
}
