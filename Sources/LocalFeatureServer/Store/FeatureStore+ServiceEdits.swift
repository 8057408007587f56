import FeatureModel
import GRDB

extension FeatureStore {
    /// Applies a service-level applyEdits in one transaction across layers, in request order.
    ///
    /// Returns one ``ApplyEditsResult`` per layer entry, each with its `id`. With `rollbackOnFailure` (the
    /// default) and any failed edit in any layer nothing is written and the ArcGIS "Operation rolled back."
    /// envelope is thrown, listing every failure with its layer.
    /// - Throws: ``ServiceError`` (400 for an unknown layer id or a roll-back); `DatabaseError` for SQLite failures.
    func applyEdits(service batch: ServiceEditBatch) throws -> [ApplyEditsResult] {
        try checkOpen()
        for layer in batch.layers where schemas[layer.layerId] == nil {
            throw ServiceError.invalidParameter("edits", reason: "layer \(layer.layerId) does not exist")
        }
        let schemas = self.schemas
        var globalIds = makeGlobalIdFactory()
        let (results, failures) = try writeInTransaction { db -> ([ApplyEditsResult], [String], Bool) in
            var results: [ApplyEditsResult] = []
            var failures: [String] = []
            for layer in batch.layers {
                var layerBatch = layer.batch
                layerBatch.rollbackOnFailure = batch.rollbackOnFailure
                layerBatch.useGlobalIds = batch.useGlobalIds
                var writer = EditWriter(db: db, layer: schemas[layer.layerId]!, schemas: schemas, batch: layerBatch, globalIds: globalIds)
                writer.labelPrefix = "layer \(layer.layerId) "
                var result = try writer.apply()
                result.id = layer.layerId
                results.append(result)
                failures += writer.failures
                globalIds = writer.globalIds
                if batch.rollbackOnFailure && !failures.isEmpty { break }
            }
            return (results, failures, batch.rollbackOnFailure && !failures.isEmpty)
        }
        remember(globalIds)
        if batch.rollbackOnFailure && !failures.isEmpty { throw ServiceError.rolledBack(failures) }
        guard batch.returnEditMoment else { return results }
        let moment = currentTime()
        return results.map { result in
            var stamped = result
            stamped.editMoment = moment
            return stamped
        }
    }
}

extension FeatureStore {
    /// Runs a queryRelatedRecords `query` from layer `layerId` on a read connection (never waits for the writer).
    /// - Throws: ``ServiceError`` (404 unknown layer, 400 unknown relationship); `DatabaseError`; `CancellationError`.
    nonisolated func relatedRecords(layerId: Int, _ query: RelatedRecordsQuery) async throws -> RelatedRecordsAnswer {
        guard let source = schemas[layerId] else { throw ServiceError.notFound("Layer \(layerId) does not exist.") }
        let path = try RelationshipPath.resolve(query.relationshipId, from: source, schemas: schemas)
        guard let related = schemas[path.related] else { throw ServiceError.notFound("Layer \(path.related) does not exist.") }
        return try await read { db in try RelatedRecordsReader.run(query, source: source, path: path, related: related, db: db) }
    }
}
