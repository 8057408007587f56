import FeatureModel
import Logging

extension FeatureServerResponder {
    /// `…/<id>/queryRelatedRecords` (arcgis-rest.md §5), in either direction of a relationship and through the
    /// relationship table of a many-to-many one.
    /// - Throws: ``ServiceError`` (404 unknown layer, 400 invalid parameters); `DatabaseError`; `CancellationError`.
    func queryRelatedRecords(store: FeatureStore, layerId: Int, parameters: RequestParameters) async throws -> ServerResponse {
        guard let source = store.schemas[layerId] else { throw ServiceError.notFound("Layer \(layerId) does not exist.") }
        let query = try RelatedRecordsQuery.parse(parameters, source: source, schemas: store.schemas, maxRecordCount: maxRecordCount(for: store)) {
            error in logger.debug("rejected definitionExpression", metadata: ["reason": "\(error)"])
        }
        let relatedId = try RelationshipPath.resolve(query.relationshipId, from: source, schemas: store.schemas).related
        guard let related = store.schemas[relatedId] else { throw ServiceError.notFound("Layer \(relatedId) does not exist.") }
        let pretty = parameters.wantsPrettyJSON
        switch try await store.relatedRecords(layerId: layerId, query) {
        case .counts(let counts):
            let groups = counts.map { RelatedRecordGroup(objectId: $0.objectId, count: $0.count) }
            return Self.render(RelatedRecordsResult(relatedRecordGroups: groups), pretty: pretty)
        case .records(let rows, let exceeded):
            var groups: [RelatedRecordGroup] = []
            for row in rows {
                if groups.last?.objectId == row.objectId {
                    groups[groups.count - 1].relatedRecords?.append(row.feature)
                } else {
                    groups.append(RelatedRecordGroup(objectId: row.objectId, relatedRecords: [row.feature]))
                }
            }
            let info = related.info
            let result = RelatedRecordsResult(
                geometryType: info.geometryType,
                spatialReference: info.geometryType == nil ? nil : (info.spatialReference ?? .wgs84),
                fields: query.outFields.map { related.fields[$0] },
                relatedRecordGroups: groups,
                exceededTransferLimit: exceeded
            )
            return Self.render(result, pretty: pretty)
        }
    }
}
