import FeatureModel

/// Rows of a many-to-many relationship table.
extension ServiceFeatureTable {
    /// A new relationship-table row linking `feature` (of this table) and `other`, with a client GlobalID when the
    /// relationship table has a GlobalID field, and the key it is pending under.
    /// - Throws: ``FeatureServiceError`` when a key is null or the relationship table's metadata cannot be read.
    func makeLink(
        _ relationship: ResolvedRelationship, feature: Feature, other: Feature
    ) async throws -> (feature: Feature, key: String, tableId: Int) {
        guard let tableId = relationship.relationshipTableId, let thisField = relationship.thisKeyInRelationshipTable,
            let otherField = relationship.otherKeyInRelationshipTable
        else { throw notRelated(relationship, operation: "relate") }
        let thisKey = try required(feature[attribute: relationship.thisKeyField], field: relationship.thisKeyField, operation: "relate")
        let otherKey = try required(other[attribute: relationship.otherKeyField], field: relationship.otherKeyField, operation: "relate")
        let table = try await service.layerInfo(id: tableId)
        var attributes: [String: JSONValue] = [thisField: RelationshipKey.stored(thisKey), otherField: RelationshipKey.stored(otherKey)]
        let globalId = GlobalID.make()
        if let globalIdField = table.globalIdField { attributes[globalIdField] = .string(globalId) }
        return (Feature(attributes: attributes), "\(tableId)/\(globalId)", tableId)
    }

    /// The links between `feature` and `other`: keys of pending link adds, and rows stored in the service (with the
    /// keys their edits would be pending under) that are not pending deletes already.
    /// - Throws: ``FeatureServiceError`` when the relationship table cannot be queried; `CancellationError`.
    func findLinks(
        _ relationship: ResolvedRelationship, feature: Feature, other: Feature
    ) async throws -> (tableId: Int, pending: [String], stored: [(key: String, row: Feature)]) {
        guard let tableId = relationship.relationshipTableId, let thisField = relationship.thisKeyInRelationshipTable,
            let otherField = relationship.otherKeyInRelationshipTable
        else { throw notRelated(relationship, operation: "unrelate") }
        let thisKey = try required(feature[attribute: relationship.thisKeyField], field: relationship.thisKeyField, operation: "unrelate")
        let otherKey = try required(other[attribute: relationship.otherKeyField], field: relationship.otherKeyField, operation: "unrelate")
        let table = try await service.layerInfo(id: tableId)
        let rows = try await service.layer(id: tableId).queryAll(
            FeatureQuery(
                whereClause: RelationshipKey.whereIn(thisField, [thisKey]) + " AND " + RelationshipKey.whereIn(otherField, [otherKey]),
                outFields: ["*"], returnGeometry: false))
        let matches = { (link: Feature) in
            RelationshipKey.canonical(link[attribute: thisField]) == RelationshipKey.canonical(thisKey)
                && RelationshipKey.canonical(link[attribute: otherField]) == RelationshipKey.canonical(otherKey)
        }
        let pendingAdds = pending.entries.filter { $0.edit.tableId == tableId && $0.edit.kind == .add && matches($0.edit.feature) }.map(\.key)
        var stored: [(key: String, row: Feature)] = []
        for row in rows {
            let globalId = table.globalIdField.flatMap { row[attribute: $0]?.stringValue }.flatMap(GlobalID.normalized)
            let objectId = row[attribute: table.objectIdField]?.intValue
            guard let local = globalId ?? objectId.map({ "oid:\($0)" }) else { continue }
            let key = "\(tableId)/\(local)"
            if pending[key]?.kind == .delete { continue }
            stored.append((key, pending[key]?.feature ?? row))
        }
        return (tableId, pendingAdds, stored)
    }
}
