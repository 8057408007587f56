import FeatureModel
import FeatureServiceClient

/// Settling a batch in doubt against the service before anything of it is sent again.
extension BatchApplier {
    /// Looks the adds of in-doubt batch `id` up by GlobalID, records those found as applied, and leaves the rest
    /// (and the batch's updates and deletes) to be sent. Returns how many were found. The look-ups are retried with
    /// ``retry``, as sending is.
    func reconcile(_ id: Int) async throws -> Int {
        let batch = try journal.batch(id)
        let adds = batch.edits.filter { $0.planned.kind == .add }
        // An atomic batch holds adds of several layers; each is looked up in its own.
        var found: [Int: [String: [Int64]]] = [:]
        for layer in Set(adds.map(\.planned.layer)).sorted() {
            guard let globalIdField = keys[layer]?.globalIdField else { continue }
            found[layer] = try await service.layer(id: layer).objectIds(
                forGlobalIds: adds.filter { $0.planned.layer == layer }.compactMap(\.planned.globalId), globalIdField: globalIdField,
                objectIdField: keys[layer]?.objectIdField ?? "OBJECTID", retry: retry)
        }
        let records = adds.compactMap { edit -> EditRecord? in
            guard let globalId = edit.planned.globalId, let objectId = found[edit.planned.layer]?[globalId]?.first else { return nil }
            return EditRecord(index: edit.planned.position.index, status: .applied, objectId: objectId, reason: "applied before the interruption")
        }
        // Files of the features found: attached by the same request, or to be attached now.
        if batch.atomic, !records.isEmpty {
            let foundPositions = Set(records.map(\.index))
            let files = batch.attachments.filter { foundPositions.contains($0.position) }.map(\.add)
            var parents: [Int: [String: Int64]] = [:]
            for (layer, ids) in found { parents[layer] = ids.compactMapValues(\.first) }
            var scratch = BatchResult(id: id)
            try journal.record(files: try await settleFiles(files, parents: parents, into: &scratch))
        }
        // Nothing of the batch is in doubt any more: what was found is recorded, the rest is sent again.
        try journal.record(batch: id, records, state: records.count == batch.edits.count ? .done : .planned)
        return records.count
    }
}
