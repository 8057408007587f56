public import FeatureModel

/// The link operations of OData, mapped onto a feature service:
///
/// | OData | here | one-to-one, one-to-many | many-to-many |
/// |---|---|---|---|
/// | create link (`POST …/$ref`) | ``ServiceFeatureTable/relate(_:to:relationshipId:)`` | set the destination's foreign key | add a row to the relationship table |
/// | update link (`PUT …/$ref`) | ``ServiceFeatureTable/move(_:from:to:relationshipId:)`` | set the foreign key to the new origin | change the row's key |
/// | delete link (`DELETE …/$ref`) | ``ServiceFeatureTable/unrelate(_:from:relationshipId:)`` | null the foreign key | delete the row |
/// | deep insert | ``ServiceFeatureTable/makeFeature(relatedTo:relationshipId:template:attributes:geometry:)`` + ``FeatureService/applyEdits(tables:rollbackOnFailure:)`` | children keyed to the parent's client GlobalID | link rows keyed to both |
///
/// Every operation is local until applied. Call it on the table that stores the link: the destination table for
/// one-to-one and one-to-many (it holds the foreign key), either table for many-to-many (the link rows are kept
/// as pending edits of the relationship table, applied with this table's edits).
extension ServiceFeatureTable {
    /// Relates `feature` (of this table) to `other` (of the related table) in memory.
    ///
    /// One-to-one and one-to-many: `feature` must be the destination; its foreign key is set to `other`'s origin key.
    /// A destination already related to another origin stays related to it as well until unrelated, which
    /// ``validateRelationshipConstraints(for:considering:)`` reports as a cardinality violation (the edit is still
    /// sendable: the service keeps the last key). Many-to-many: a row linking both is added to the relationship table.
    ///
    /// The changed feature is recorded as a pending update when it has an object ID, replaces its pending add, or —
    /// for a new feature not yet added — is only returned, for you to ``add(_:)``.
    /// - Returns: `feature` with its new key.
    /// - Throws: ``FeatureServiceError`` for an unknown relationship, a key that is null, or a one-to-one/one-to-many
    ///   relate called on the origin table; `CancellationError`.
    @discardableResult
    public func relate(_ feature: Feature, to other: Feature, relationshipId: Int) async throws -> Feature {
        let relationship = try await resolve(relationshipId)
        if relationship.isManyToMany {
            let link = try await makeLink(relationship, feature: feature, other: other)
            pending.add(link.feature, key: link.key, tableId: link.tableId)
            return feature
        }
        let (foreignKey, originKey) = try foreignKeyFields(relationship, operation: "relate")
        let value = try required(other[attribute: originKey], field: originKey, operation: "relate")
        var changed = feature
        changed.attributes[foreignKey] = RelationshipKey.stored(value)
        if let key = key(of: feature) {
            var origins = relatedOrigins[key]?[relationshipId] ?? [feature[attribute: foreignKey]].compactMap { $0 }.filter { !$0.isNull }
            if !origins.contains(where: { RelationshipKey.canonical($0) == RelationshipKey.canonical(value) }) { origins.append(value) }
            relatedOrigins[key, default: [:]][relationshipId] = origins
        }
        record(changed)
        return changed
    }

    /// Removes the link between `feature` (of this table) and `other` in memory: nulls the foreign key, or deletes the
    /// relationship-table row (looked up in the service when it is not a pending add).
    /// - Returns: `feature` as changed (unchanged for many-to-many).
    /// - Throws: ``FeatureServiceError`` when the two are not related (as the ArcGIS Maps SDKs do), for an unknown
    ///   relationship, or when the link cannot be looked up; `CancellationError`.
    @discardableResult
    public func unrelate(_ feature: Feature, from other: Feature, relationshipId: Int) async throws -> Feature {
        let relationship = try await resolve(relationshipId)
        if relationship.isManyToMany {
            let links = try await findLinks(relationship, feature: feature, other: other)
            guard !links.pending.isEmpty || !links.stored.isEmpty else { throw notRelated(relationship, operation: "unrelate") }
            for key in links.pending { pending.remove(key) }
            for (key, row) in links.stored { pending.delete(row, key: key, tableId: links.tableId) }
            return feature
        }
        let (foreignKey, originKey) = try foreignKeyFields(relationship, operation: "unrelate")
        let target = RelationshipKey.canonical(other[attribute: originKey])
        let key = key(of: feature)
        var origins = key.flatMap { relatedOrigins[$0]?[relationshipId] } ?? [feature[attribute: foreignKey]].compactMap { $0 }.filter { !$0.isNull }
        guard target != nil, origins.contains(where: { RelationshipKey.canonical($0) == target }) else {
            throw notRelated(relationship, operation: "unrelate")
        }
        origins.removeAll { RelationshipKey.canonical($0) == target }
        var changed = feature
        if RelationshipKey.canonical(feature[attribute: foreignKey]) == target { changed.attributes[foreignKey] = origins.last ?? .null }
        if let key { relatedOrigins[key, default: [:]][relationshipId] = origins }
        record(changed)
        return changed
    }

    /// Moves `feature`'s link from `old` to `new` in memory (OData's update link): the foreign key now names `new`
    /// only, or the relationship-table row is changed to point at `new` (its other attributes kept).
    /// - Parameter old: The current partner; for one-to-one and one-to-many it may be nil (whatever the key names).
    /// - Returns: `feature` as changed.
    /// - Throws: ``FeatureServiceError`` when `feature` is not related to `old`, or as ``relate(_:to:relationshipId:)``.
    @discardableResult
    public func move(_ feature: Feature, from old: Feature?, to new: Feature, relationshipId: Int) async throws -> Feature {
        let relationship = try await resolve(relationshipId)
        if relationship.isManyToMany {
            guard let old, let otherKeyInTable = relationship.otherKeyInRelationshipTable else { throw notRelated(relationship, operation: "move") }
            let newKey = try required(new[attribute: relationship.otherKeyField], field: relationship.otherKeyField, operation: "move")
            let links = try await findLinks(relationship, feature: feature, other: old)
            if let key = links.pending.first, var link = pending[key] {
                link.feature.attributes[otherKeyInTable] = RelationshipKey.stored(newKey)
                pending.update(link.feature, key: key, tableId: link.tableId)
            } else if let (key, row) = links.stored.first {
                var changed = row
                changed.attributes[otherKeyInTable] = RelationshipKey.stored(newKey)
                pending.update(changed, key: key, tableId: links.tableId)
            } else {
                throw notRelated(relationship, operation: "move")
            }
            return feature
        }
        let (foreignKey, originKey) = try foreignKeyFields(relationship, operation: "move")
        if let old, RelationshipKey.canonical(old[attribute: originKey]) != RelationshipKey.canonical(feature[attribute: foreignKey]) {
            throw notRelated(relationship, operation: "move")
        }
        let value = try required(new[attribute: originKey], field: originKey, operation: "move")
        var changed = feature
        changed.attributes[foreignKey] = RelationshipKey.stored(value)
        if let key = key(of: feature) { relatedOrigins[key, default: [:]][relationshipId] = [value] }
        record(changed)
        return changed
    }

    /// Swaps the partners of two destinations in memory — for one-to-one, the two pairs (A–X, B–Y) become (A–Y, B–X) —
    /// by exchanging their foreign keys. Apply both edits in one call (``FeatureService/applyEdits(tables:rollbackOnFailure:)``)
    /// so that no reader sees one half.
    /// - Returns: Both features as changed.
    /// - Throws: ``FeatureServiceError`` for a many-to-many or unknown relationship, or when called on the origin table.
    public func swapPartners(_ first: Feature, _ second: Feature, relationshipId: Int) async throws -> (Feature, Feature) {
        let relationship = try await resolve(relationshipId)
        let (foreignKey, _) = try foreignKeyFields(relationship, operation: "swap")
        var a = first
        var b = second
        a.attributes[foreignKey] = second[attribute: foreignKey] ?? .null
        b.attributes[foreignKey] = first[attribute: foreignKey] ?? .null
        for feature in [a, b] {
            guard let key = key(of: feature) else { continue }
            let value = feature[attribute: foreignKey] ?? .null
            relatedOrigins[key, default: [:]][relationshipId] = value.isNull ? [] : [value]
        }
        record(a)
        record(b)
        return (a, b)
    }

    /// A new feature related to `parent` (of the related table): ``makeFeature(template:attributes:geometry:)`` then
    /// ``relate(_:to:relationshipId:)``. Not yet added: ``add(_:)`` it (a many-to-many link is pending already).
    ///
    /// With a parent that is itself a pending add, apply both tables with
    /// ``FeatureService/applyEdits(tables:rollbackOnFailure:)``: the child references the parent's client GlobalID
    /// (a deep insert).
    /// - Throws: As ``relate(_:to:relationshipId:)``.
    public func makeFeature(
        relatedTo parent: Feature, relationshipId: Int, template: FeatureTemplate? = nil, attributes: [String: JSONValue] = [:],
        geometry: Geometry? = nil
    ) async throws -> Feature {
        try await relate(makeFeature(template: template, attributes: attributes, geometry: geometry), to: parent, relationshipId: relationshipId)
    }

    // MARK: shared

    /// The relationship `id` of this table, with the related table's side read from its metadata.
    /// - Throws: ``FeatureServiceError`` when this table or the related one has no relationship `id`.
    func resolve(_ id: Int) async throws -> ResolvedRelationship {
        guard let mine = info.relationship(id: id) else {
            throw FeatureServiceError.invalidRequest("layer \(tableId) has no relationship \(id)", operation: "relationship", url: client.url)
        }
        let related = try await service.layerInfo(id: mine.relatedTableId)
        guard let theirs = related.relationship(id: id) else {
            throw FeatureServiceError.invalidRequest(
                "layer \(mine.relatedTableId) does not list relationship \(id) '\(mine.name)'", operation: "relationship", url: client.url)
        }
        return ResolvedRelationship(table: tableId, mine: mine, theirs: theirs)
    }

    /// Records a changed feature: update of a pending add, pending update of a stored feature, or nothing for a new
    /// feature not yet added.
    func record(_ feature: Feature) {
        guard let key = key(of: feature) else { return }
        if pending[key] != nil || objectId(of: feature) != nil { pending.update(feature, key: key, tableId: tableId) }
    }

    /// The destination's foreign key and the origin's key field; throws unless this table is the destination of a
    /// one-to-one or one-to-many relationship.
    func foreignKeyFields(_ relationship: ResolvedRelationship, operation: String) throws -> (foreignKey: String, originKey: String) {
        guard !relationship.isManyToMany, relationship.role == .destination, let foreignKey = relationship.destinationForeignKey else {
            let reason =
                relationship.isManyToMany
                ? "relationship \(relationship.id) '\(relationship.name)' is many-to-many; it has no foreign key to \(operation)"
                : "call \(operation) on the destination table (\(relationship.destinationTableId)), "
                    + "which holds the foreign key '\(relationship.destinationForeignKey ?? "")'"
            throw FeatureServiceError.invalidRequest(reason, operation: operation, url: client.url)
        }
        return (foreignKey, relationship.originKey)
    }

    func required(_ value: JSONValue?, field: String, operation: String) throws -> JSONValue {
        guard let value, !value.isNull else {
            throw FeatureServiceError.invalidRequest(
                "the related feature has no value in its key field '\(field)'", operation: operation, url: client.url)
        }
        return value
    }

    func notRelated(_ relationship: ResolvedRelationship, operation: String) -> FeatureServiceError {
        FeatureServiceError.invalidRequest(
            "the features are not related through relationship \(relationship.id) '\(relationship.name)'", operation: operation, url: client.url)
    }
}
