public import FeatureModel

extension ServiceFeatureTable {
    /// The relationship rules `feature` breaks, in every relationship of this table: cardinality and orphaned
    /// violations as the ArcGIS Maps SDKs define them, and dangling keys (a foreign key no feature holds).
    ///
    /// The links are what the service holds, overlaid with this table's pending edits and those of
    /// `relatedTables` (so a parent that is a pending add counts as existing, and pending relates count as links).
    /// Nothing is blocked: an edit that breaks a rule can still be applied.
    /// - Parameters:
    ///   - feature: A feature of this table, as edited.
    ///   - relatedTables: Tables whose pending edits to take into account (the related tables you edit).
    /// - Returns: The violations, relationship by relationship.
    /// - Throws: ``FeatureServiceError`` when metadata or related rows cannot be read; `CancellationError`.
    public func validateRelationshipConstraints(
        for feature: Feature, considering relatedTables: [ServiceFeatureTable] = []
    ) async throws -> [RelationshipConstraintViolation] {
        var others: [PendingEdit] = []
        for table in relatedTables where table !== self { others += await table.pendingEdits }
        var found: [RelationshipConstraintViolation] = []
        for entry in info.relationships ?? [] {
            let relationship = try await resolve(entry.id)
            let partners: [RelationshipLinks.Partner]
            if relationship.isManyToMany {
                partners = try await manyToManyPartners(of: feature, relationship, others: others)
            } else if relationship.role == .destination {
                partners = try await originPartners(of: feature, relationship, others: others)
            } else {
                partners = try await destinationPartners(of: feature, relationship, others: others)
            }
            found += RelationshipValidator.violations(
                RelationshipLinks(
                    relationshipId: relationship.id, relationshipName: relationship.name, cardinality: relationship.cardinality,
                    composite: relationship.composite, role: relationship.role, partners: partners))
        }
        return found
    }

    /// A destination's origins: its foreign key, or every origin it was related to in memory.
    private func originPartners(
        of feature: Feature, _ relationship: ResolvedRelationship, others: [PendingEdit]
    ) async throws -> [RelationshipLinks
        .Partner]
    {
        let foreignKey = relationship.destinationForeignKey ?? ""
        let featureKey = key(of: feature)
        let history = featureKey.flatMap { relatedOrigins[$0]?[relationship.id] }
        let keys = Self.unique(history ?? [feature[attribute: foreignKey]].compactMap { $0 })
        guard !keys.isEmpty else { return [] }
        let existing = try await existingKeys(keys, field: relationship.originKey, tableId: relationship.originTableId, others: others)
        var sharing: [String: Int] = [:]
        if relationship.cardinality == .oneToOne {
            // Other destinations of the same origins: stored rows not overridden locally, then local edits.
            let rows = try await client.queryAll(
                FeatureQuery(whereClause: RelationshipKey.whereIn(foreignKey, keys), outFields: ["*"], returnGeometry: false))
            for row in rows {
                guard let rowKey = key(of: row), rowKey != featureKey, pending[rowKey] == nil else { continue }
                if let target = RelationshipKey.canonical(row[attribute: foreignKey]) { sharing[target, default: 0] += 1 }
            }
            for (key, edit) in pending.entries where key != featureKey && edit.tableId == tableId && edit.kind != .delete {
                if let target = RelationshipKey.canonical(edit.feature[attribute: foreignKey]) { sharing[target, default: 0] += 1 }
            }
        }
        return keys.map { key in
            let canonical = RelationshipKey.canonical(key) ?? ""
            return RelationshipLinks.Partner(key: key, exists: existing.contains(canonical), relatedOnThisSide: 1 + sharing[canonical, default: 0])
        }
    }

    /// An origin's destinations: the rows whose foreign key names it, with the related tables' pending edits overlaid.
    private func destinationPartners(
        of feature: Feature, _ relationship: ResolvedRelationship, others: [PendingEdit]
    ) async throws
        -> [RelationshipLinks.Partner]
    {
        guard let foreignKey = relationship.destinationForeignKey, let myKey = feature[attribute: relationship.originKey], !myKey.isNull else {
            return []
        }
        let rows = try await rows(in: relationship.destinationTableId, where: RelationshipKey.whereIn(foreignKey, [myKey]), others: others)
        let target = RelationshipKey.canonical(myKey)
        return rows.filter { RelationshipKey.canonical($0.value[attribute: foreignKey]) == target }.map {
            RelationshipLinks.Partner(key: .string($0.key))
        }
    }

    /// A many-to-many partner list: the relationship-table rows naming `feature`, with pending link edits overlaid.
    private func manyToManyPartners(
        of feature: Feature, _ relationship: ResolvedRelationship, others: [PendingEdit]
    ) async throws
        -> [RelationshipLinks.Partner]
    {
        guard let tableId = relationship.relationshipTableId, let thisField = relationship.thisKeyInRelationshipTable,
            let otherField = relationship.otherKeyInRelationshipTable, let myKey = feature[attribute: relationship.thisKeyField], !myKey.isNull
        else { return [] }
        let local = pending.entries.map(\.edit).filter { $0.tableId == tableId }
        let rows = try await rows(in: tableId, where: RelationshipKey.whereIn(thisField, [myKey]), others: others + local)
        let target = RelationshipKey.canonical(myKey)
        let keys = Self.unique(
            rows.filter { RelationshipKey.canonical($0.value[attribute: thisField]) == target }.compactMap { $0.value[attribute: otherField] })
        guard !keys.isEmpty else { return [] }
        let otherTable = relationship.role == .origin ? relationship.destinationTableId : relationship.originTableId
        let existing = try await existingKeys(keys, field: relationship.otherKeyField, tableId: otherTable, others: others)
        return keys.map { RelationshipLinks.Partner(key: $0, exists: existing.contains(RelationshipKey.canonical($0) ?? "")) }
    }

    /// The canonical keys among `keys` that name a row of `tableId` (stored, or a pending add of `others`), minus
    /// pending deletes.
    private func existingKeys(_ keys: [JSONValue], field: String, tableId: Int, others: [PendingEdit]) async throws -> Set<String> {
        let rows = try await rows(in: tableId, where: RelationshipKey.whereIn(field, keys), others: others)
        return Set(rows.compactMap { RelationshipKey.canonical($0.value[attribute: field]) })
    }

    /// The rows of `tableId` matching `whereClause` in the service, overlaid with `edits` of that table (adds and
    /// updates replace or join, deletes remove), keyed by GlobalID (or `oid:<n>`). Local rows are not filtered.
    private func rows(in tableId: Int, where whereClause: String, others edits: [PendingEdit]) async throws -> [(key: String, value: Feature)] {
        let layer = tableId == self.tableId ? info : try await service.layerInfo(id: tableId)
        let stored = try await service.layer(id: tableId).queryAll(FeatureQuery(whereClause: whereClause, outFields: ["*"], returnGeometry: false))
        func rowKey(_ feature: Feature) -> String? {
            if let globalId = layer.globalIdField.flatMap({ feature[attribute: $0]?.stringValue }).flatMap(GlobalID.normalized) { return globalId }
            return feature[attribute: layer.objectIdField]?.intValue.map { "oid:\($0)" }
        }
        var order: [String] = []
        var rows: [String: Feature] = [:]
        for row in stored {
            guard let key = rowKey(row) else { continue }
            if rows[key] == nil { order.append(key) }
            rows[key] = row
        }
        for edit in edits where edit.tableId == tableId {
            guard let key = rowKey(edit.feature) else { continue }
            if edit.kind == .delete {
                rows[key] = nil
            } else {
                if rows[key] == nil && !order.contains(key) { order.append(key) }
                rows[key] = edit.feature
            }
        }
        return order.compactMap { key in rows[key].map { (key, $0) } }
    }

    private static func unique(_ values: [JSONValue]) -> [JSONValue] {
        var seen: Set<String> = []
        return values.filter { value in
            guard let canonical = RelationshipKey.canonical(value) else { return false }
            return seen.insert(canonical).inserted
        }
    }
}
