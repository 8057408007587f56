import FeatureModel

extension FeatureLayerClient {
    /// The rows whose GlobalID is one of `globalIds`: each GlobalID found, with the objectId of every row that holds
    /// it (more than one only on a layer that does not keep GlobalIDs unique). Queried `chunkSize` keys at a time,
    /// each chunk paged until the service has sent every row.
    ///
    /// ```swift
    /// let found = try await layer.objectIds(forGlobalIds: ids, objectIdField: "OBJECTID")
    /// let missing = ids.filter { found[$0] == nil }
    /// ```
    /// - Parameters:
    ///   - globalIds: GlobalIDs in any accepted spelling; answers are keyed by the canonical `{…}` form.
    ///   - globalIdField: The layer's GlobalID field. Default `GlobalID`.
    ///   - objectIdField: The layer's object-ID field.
    ///   - chunkSize: Keys per query. Default 500, which keeps the where clause short enough for any service.
    ///   - policy: How each page request is retried; `nil` makes one attempt each.
    /// - Returns: The objectIds by canonical GlobalID; GlobalIDs not found are absent.
    /// - Throws: ``FeatureServiceError`` (with a policy, once it gave up on a request); `CancellationError` when the
    ///   task was cancelled.
    public func objectIds(
        forGlobalIds globalIds: [String], globalIdField: String = "GlobalID", objectIdField: String, chunkSize: Int = 500,
        retry policy: RetryPolicy? = nil
    ) async throws -> [String: [Int64]] {
        var found: [String: [Int64]] = [:]
        var start = 0
        while start < globalIds.count {
            let chunk = Array(globalIds[start..<min(start + max(1, chunkSize), globalIds.count)])
            start += chunk.count
            let query = FeatureQuery(
                whereClause: RelationshipKey.whereIn(globalIdField, chunk.map(JSONValue.string)), outFields: [objectIdField, globalIdField],
                returnGeometry: false, orderByFields: objectIdField)
            for feature in try await queryAll(query, retry: policy) {
                guard let text = feature[attribute: globalIdField]?.stringValue, let globalId = GlobalID.normalized(text),
                    let objectId = feature[attribute: objectIdField]?.intValue
                else { continue }
                found[globalId, default: []].append(objectId)
            }
        }
        return found
    }

    /// The objectIds of the rows with `globalIds`, queried in chunks of 500 through `log`, each query an attempt of
    /// purpose ``Attempt/Purpose/verification``: the look-up of a retried applyEdits, at the layer or the service level.
    /// One attempt per chunk; the caller decides on retries.
    /// - Parameters:
    ///   - globalIds: Normalized GlobalIDs.
    ///   - globalIdField: The layer's GlobalID field, where the service does not name it.
    ///   - objectIdField: The layer's object-ID field, where the service does not name it.
    ///   - outFields: The fields asked for; they must include the object-ID and GlobalID fields.
    ///   - operation: The operation's name in errors.
    ///   - log: The operation's attempts, which the queries join.
    /// - Returns: The objectIds by normalized GlobalID, and the object-ID field the service named (or the fallback).
    /// - Throws: ``FeatureServiceError``; `CancellationError`.
    func lookUp(
        globalIds: [String], globalIdField: String, objectIdField fallbackObjectIdField: String = "OBJECTID", outFields: [String] = ["*"],
        operation: String = "applyEdits check", log: inout AttemptLog
    ) async throws -> (objectIds: [String: Int64], objectIdField: String?) {
        var objectIds: [String: Int64] = [:]
        var objectIdField: String?
        var start = 0
        while start < globalIds.count {
            let chunk = Array(globalIds[start..<min(start + 500, globalIds.count)])
            start += chunk.count
            let query = FeatureQuery(
                whereClause: RelationshipKey.whereIn(globalIdField, chunk.map(JSONValue.string)), outFields: outFields, returnGeometry: false)
            let request = HTTPRequest.form(url: exchangeURL("query"), fields: query.formFields)
            let response = try await exchange.send(request, operation: operation, purpose: .verification, log: &log)
            let set = try FeatureServiceExchange.decode(response, as: FoundRows.self, operation: operation, url: request.url)
            let oidField = set.objectIdFieldName ?? fallbackObjectIdField
            objectIdField = oidField
            for feature in set.rows {
                guard let text = feature[attribute: set.globalIdFieldName ?? globalIdField]?.stringValue,
                    let globalId = GlobalID.normalized(text), let objectId = feature[attribute: oidField]?.intValue
                else { continue }
                objectIds[globalId] = objectId
            }
        }
        return (objectIds, objectIdField)
    }
}
