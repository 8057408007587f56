public import FeatureModel

extension ServiceFeatureTable {
    /// Adds `features` at once through `POST …/<id>/addFeatures`, bypassing the pending edits.
    /// - Parameters:
    ///   - features: The new features; GlobalIDs they carry are kept when `useGlobalIds` is true.
    ///   - useGlobalIds: Keep client-assigned GlobalIDs. Default true when the layer supports it.
    ///   - rollbackOnFailure: All or nothing (an error is thrown when anything fails). Default false.
    /// - Returns: One result per feature, in order.
    /// - Throws: ``FeatureServiceError``; `CancellationError` — the features may then have been added or not.
    public nonisolated func addFeatures(
        _ features: [Feature], useGlobalIds: Bool? = nil, rollbackOnFailure: Bool = false
    ) async throws
        -> [EditResult]
    {
        try await editOperation(
            "addFeatures", key: "addResults", features: features, useGlobalIds: useGlobalIds, rollbackOnFailure: rollbackOnFailure)
    }

    /// Updates `features` at once through `POST …/<id>/updateFeatures`, bypassing the pending edits; each is found
    /// by its object ID (or, with `useGlobalIds`, its GlobalID).
    /// - Returns: One result per feature, in order.
    /// - Throws: ``FeatureServiceError``; `CancellationError`.
    public nonisolated func updateFeatures(
        _ features: [Feature], useGlobalIds: Bool = false, rollbackOnFailure: Bool = false
    ) async throws
        -> [EditResult]
    {
        try await editOperation(
            "updateFeatures", key: "updateResults", features: features, useGlobalIds: useGlobalIds, rollbackOnFailure: rollbackOnFailure)
    }

    /// Deletes rows by object ID through `POST …/<id>/deleteFeatures`, bypassing the pending edits.
    /// - Returns: One result per object ID.
    /// - Throws: ``FeatureServiceError``; `CancellationError`.
    public nonisolated func deleteFeatures(objectIds: [Int64], rollbackOnFailure: Bool = false) async throws -> [EditResult] {
        let fields = [
            FormField("f", "json"), FormField("objectIds", objectIds.map(String.init).joined(separator: ",")),
            FormField("rollbackOnFailure", String(rollbackOnFailure)),
        ]
        return try await client.post("deleteFeatures", fields: fields, as: OperationResults.self).results(for: "deleteResults")
    }

    /// Deletes every row matching `whereClause` through `POST …/<id>/deleteFeatures`, bypassing the pending edits.
    ///
    /// Composite relationships cascade on the service: deleting a park deletes its species.
    /// - Parameters:
    ///   - whereClause: A SQL-92 where clause, e.g. `state = 'WY'`.
    ///   - rollbackOnFailure: All or nothing. Default true.
    /// - Returns: One result per deleted row.
    /// - Throws: ``FeatureServiceError`` (an ArcGIS 400 error for an invalid where clause); `CancellationError`.
    public nonisolated func deleteFeatures(where whereClause: String, rollbackOnFailure: Bool = true) async throws -> [EditResult] {
        let fields = [FormField("f", "json"), FormField("where", whereClause), FormField("rollbackOnFailure", String(rollbackOnFailure))]
        return try await client.post("deleteFeatures", fields: fields, as: OperationResults.self).results(for: "deleteResults")
    }

    private nonisolated func editOperation(
        _ operation: String, key: String, features: [Feature], useGlobalIds: Bool?, rollbackOnFailure: Bool
    ) async throws -> [EditResult] {
        let keepGlobalIds = useGlobalIds ?? (info.globalIdField != nil && info.supportsApplyEditsWithGlobalIds != false)
        let fields = [
            FormField("f", "json"), FormField("features", JSONWriter.string(features: features)),
            FormField("rollbackOnFailure", String(rollbackOnFailure)), FormField("useGlobalIds", String(keepGlobalIds)),
        ]
        return try await client.post(operation, fields: fields, as: OperationResults.self).results(for: key)
    }
}

/// The answer to addFeatures, updateFeatures or deleteFeatures: `{"addResults":[…]}` (or update/delete).
private struct OperationResults: Decodable, Sendable {
    var addResults: [EditResult]?
    var updateResults: [EditResult]?
    var deleteResults: [EditResult]?

    func results(for key: String) -> [EditResult] {
        switch key {
        case "addResults": addResults ?? []
        case "updateResults": updateResults ?? []
        default: deleteResults ?? []
        }
    }
}
