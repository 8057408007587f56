public import FeatureModel

extension ServiceFeatureTable {
    /// The attribute values of `feature` that this layer's fields and domains reject; a
    /// feature without an object ID is new, so its required fields must be present. Check before sending: the
    /// service would fail those edits.
    public nonisolated func validateDomains(for feature: Feature) -> [DomainViolation] {
        DomainValidator.violations(of: feature, in: info, isNew: objectId(of: feature) == nil)
    }

    /// The layer's contingent values (`GET …/<id>/contingentValues`), read once and cached; empty when the layer has
    /// none (`hasContingentValuesDefinition` false).
    /// - Throws: ``FeatureServiceError`` when the resource cannot be read or parsed; `CancellationError`.
    public func contingentValuesDefinition() async throws -> ContingentValuesDefinition {
        if let cached = contingentValuesCache { return cached }
        guard info.hasContingentValuesDefinition == true else { return ContingentValuesDefinition(fieldGroups: []) }
        let url = FeatureServiceExchange.jsonURL(client.exchangeURL("contingentValues"))
        let json = try await client.exchange.perform(HTTPRequest(url: url), operation: "contingentValues", as: JSONValue.self)
        let definition: ContingentValuesDefinition
        do {
            definition = try ContingentValuesDefinition(json: json, layerID: tableId)
        } catch {
            throw FeatureServiceError.invalidRequest("the contingent values could not be read: \(error)", operation: "contingentValues", url: url)
        }
        contingentValuesCache = definition
        return definition
    }

    /// The values `field` may take, by field group, given `feature`'s other values (ArcGIS Maps SDK
    /// `contingentValues(feature:field:)`).
    /// - Throws: As ``contingentValuesDefinition()``.
    public func contingentValues(for feature: Feature, field: String) async throws -> ContingentValuesResult {
        try await contingentValuesDefinition().contingentValues(for: feature, field: field, subtypeField: info.typeIdField)
    }

    /// The field groups whose contingent values `feature` breaks: errors for restrictive groups, warnings otherwise.
    /// The edit is not blocked; validation is for the caller.
    /// - Throws: As ``contingentValuesDefinition()``.
    public func validateContingencyConstraints(for feature: Feature) async throws -> [ContingencyConstraintViolation] {
        try await contingentValuesDefinition().validateContingencyConstraints(for: feature, subtypeField: info.typeIdField)
    }
}
