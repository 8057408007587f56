import FeatureModel

/// One layer-level applyEdits request planned from pending edits: the edits in wire form and, in the same order, the
/// pending edits they came from, so per-edit results map back.
struct LayerEditBatch: Sendable {
    /// The batch's place among all batches of one applyEdits.
    var index: Int
    var tableId: Int
    var client: FeatureLayerClient
    var edits: LayerEdits
    var options: ApplyEditsOptions
    var globalIdField: String?
    var objectIdField: String
    var adds: [PendingEditSnapshot] = []
    var updates: [PendingEditSnapshot] = []
    var deletes: [PendingEditSnapshot] = []

    /// Splits `entries` (all of one table) into batches of at most `batchSize` edits. Pure.
    ///
    /// Deletes go by object ID when the feature has one (always addressable), otherwise by GlobalID (with
    /// `useGlobalIds=true`); a request carries one kind of delete key only, so GlobalID deletes that share a chunk
    /// with object-ID deletes get a batch of their own.
    static func plan(
        _ entries: [PendingEditSnapshot], layer: LayerInfo, client: FeatureLayerClient, batchSize: Int, rollbackOnFailure: Bool, firstIndex: Int
    ) -> [LayerEditBatch] {
        let useGlobalIds = layer.globalIdField != nil && layer.supportsApplyEditsWithGlobalIds != false
        let options = ApplyEditsOptions(rollbackOnFailure: rollbackOnFailure, useGlobalIds: useGlobalIds)
        var batches: [LayerEditBatch] = []
        func empty() -> LayerEditBatch {
            LayerEditBatch(
                index: firstIndex + batches.count, tableId: layer.id, client: client, edits: LayerEdits(), options: options,
                globalIdField: layer.globalIdField, objectIdField: layer.objectIdField)
        }
        var start = 0
        while start < entries.count {
            let chunk = entries[start..<min(start + batchSize, entries.count)]
            start += chunk.count
            var batch = empty()
            var byGlobalId: [(PendingEditSnapshot, String)] = []
            for entry in chunk {
                let feature = entry.edit.feature
                switch entry.edit.kind {
                case .add:
                    batch.edits.adds.append(feature)
                    batch.adds.append(entry)
                case .update:
                    batch.edits.updates.append(feature)
                    batch.updates.append(entry)
                case .delete:
                    if let objectId = feature[attribute: layer.objectIdField]?.intValue {
                        batch.edits.deletes.append(objectId)
                        batch.deletes.append(entry)
                    } else if let globalId = layer.globalIdField.flatMap({ feature[attribute: $0]?.stringValue }) {
                        byGlobalId.append((entry, globalId))
                    }
                }
            }
            if !byGlobalId.isEmpty && batch.edits.deletes.isEmpty {
                batch.edits.deleteGlobalIds = byGlobalId.map(\.1)
                batch.deletes = byGlobalId.map(\.0)
                byGlobalId = []
            }
            if batch.edits.count > 0 { batches.append(batch) }
            if !byGlobalId.isEmpty {
                var extra = empty()
                extra.edits.deleteGlobalIds = byGlobalId.map(\.1)
                extra.deletes = byGlobalId.map(\.0)
                batches.append(extra)
            }
        }
        return batches
    }

    /// Sends the batch.
    /// - Throws: ``FeatureServiceError``; `CancellationError`.
    func send(retry: RetryPolicy) async throws -> ApplyEditsOutcome {
        try await client.applyEdits(edits, options: options, retry: retry, globalIdField: globalIdField ?? "GlobalID")
    }

    /// One result per edit from a response.
    func results(of outcome: ApplyEditsOutcome) -> [(PendingEditSnapshot, FeatureEditResult)] {
        func map(_ entries: [PendingEditSnapshot], _ outcomes: [EditOutcome]) -> [(PendingEditSnapshot, FeatureEditResult)] {
            entries.enumerated().map { index, entry in
                guard index < outcomes.count else {
                    let error = EditError(code: 0, description: "the service sent no result for this edit")
                    return (entry, result(entry, status: .outcomeUnknown, objectId: nil, globalId: nil, error: error))
                }
                let outcome = outcomes[index]
                var error = outcome.result?.error
                if outcome.status == .outcomeUnknown {
                    error = EditError(code: 0, description: outcome.reason ?? "the outcome of the edit is unknown")
                }
                if outcome.status == .failed && error == nil {
                    error = EditError(code: 0, description: "the service reported a failure without an error")
                }
                return (
                    entry, result(entry, status: outcome.status, objectId: outcome.result?.objectId, globalId: outcome.result?.globalId, error: error)
                )
            }
        }
        return map(adds, outcome.adds) + map(updates, outcome.updates) + map(deletes, outcome.deletes)
    }

    /// One result per edit when the whole request failed.
    func results(of error: FeatureServiceError) -> [(PendingEditSnapshot, FeatureEditResult)] {
        let status: EditOutcome.Status = error.mayHaveBeenApplied ? .outcomeUnknown : .failed
        let editError = EditError(batchFailure: error)
        return (adds + updates + deletes).map { ($0, result($0, status: status, objectId: nil, globalId: nil, error: editError)) }
    }

    private func result(
        _ entry: PendingEditSnapshot, status: EditOutcome.Status, objectId: Int64?, globalId: String?, error: EditError?
    ) -> FeatureEditResult {
        let feature = entry.edit.feature
        return FeatureEditResult(
            tableId: tableId, kind: entry.edit.kind, objectId: objectId ?? feature[attribute: objectIdField]?.intValue,
            globalId: globalId ?? globalIdField.flatMap { feature[attribute: $0]?.stringValue }.flatMap(GlobalID.normalized),
            status: status, error: status == .applied || status == .appliedByEarlierAttempt ? nil : error)
    }
}
