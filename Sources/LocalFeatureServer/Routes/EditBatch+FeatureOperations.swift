import FeatureModel

extension EditBatch {
    /// Reads an addFeatures, updateFeatures or deleteFeatures request for `layer`.
    ///
    /// addFeatures and updateFeatures: `features` (a JSON array of `{attributes, geometry}`). deleteFeatures:
    /// `objectIds` (comma list) and/or `where` (the query dialect); at least one is required. All: `rollbackOnFailure`
    /// (default true), `useGlobalIds` (default false), `returnEditMoment` (default false).
    /// - Parameters:
    ///   - rejectedWhere: Called with the reason when the `where` clause is rejected (for the log).
    /// - Throws: ``ServiceError`` (400) naming the invalid parameter.
    static func parse(
        _ operation: FeatureServerRoute.EditOperation, _ parameters: RequestParameters, layer: LayerSchema,
        rejectedWhere: (WhereClauseError) -> Void = { _ in }
    ) throws(ServiceError) -> EditBatch {
        var batch = EditBatch()
        batch.rollbackOnFailure = try parameters.bool("rollbackOnFailure", default: true)
        batch.useGlobalIds = try parameters.bool("useGlobalIds", default: false)
        batch.returnEditMoment = try parameters.bool("returnEditMoment", default: false)
        switch operation {
        case .addFeatures:
            batch.adds = try parameters["features"].map { text throws(ServiceError) in try features(text, parameter: "features") } ?? []
        case .updateFeatures:
            batch.updates = try parameters["features"].map { text throws(ServiceError) in try features(text, parameter: "features") } ?? []
        case .deleteFeatures:
            let objectIds = parameters["objectIds"]
            let whereText = parameters["where"]
            guard objectIds != nil || whereText != nil else {
                throw ServiceError.invalidParameter("objectIds", reason: "deleteFeatures needs objectIds or where")
            }
            let ids = try objectIds.map { text throws(ServiceError) in try LayerQuery.parseObjectIds(text) }
            guard let whereText else {
                batch.deletes = (ids ?? []).map { .objectId($0) }
                return batch
            }
            var filter: SQLFragment
            do {
                filter = try WhereCompiler(fields: layer.fields).compile(whereText)
            } catch {
                rejectedWhere(error)
                throw ServiceError.invalidWhere
            }
            if let ids {
                // Both given: the rows matching the clause among the listed ones.
                filter.sql = "(\(filter.sql)) AND \(layer.column(layer.objectIdField)) IN (SELECT value FROM json_each(?))"
                filter.bindings.append(.text("[" + ids.map(String.init).joined(separator: ",") + "]"))
            }
            batch.deleteWhere = filter
        }
        return batch
    }
}
