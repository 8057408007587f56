public import FeatureModel

/// A value together with every attempt made to get it.
public struct Retried<Value: Sendable>: Sendable {
    /// The answer.
    public var value: Value
    /// Every exchange made: the first try, retries and token replays.
    public var attempts: [Attempt]
}

extension FeatureLayerClient {
    /// Runs a query (`POST …/<id>/query`), retrying as `policy` allows (queries are idempotent).
    /// - Returns: The feature set and every attempt.
    /// - Throws: ``FeatureServiceError`` with its attempts and stop reason; `CancellationError`.
    public func query(_ query: FeatureQuery, retry policy: RetryPolicy) async throws -> Retried<FeatureSet> {
        let request = HTTPRequest.form(url: exchangeURL("query"), fields: query.formFields)
        let (value, attempts) = try await exchange.perform(request, operation: "query", as: FeatureSet.self, retry: policy)
        return Retried(value: value, attempts: attempts)
    }

    /// Counts the rows matching `where` (and `objectIds`), retrying as `policy` allows.
    /// - Returns: The count and every attempt.
    /// - Throws: ``FeatureServiceError`` with its attempts and stop reason; `CancellationError`.
    public func count(where whereClause: String = "1=1", objectIds: [Int64]? = nil, retry policy: RetryPolicy) async throws -> Retried<Int> {
        let query = FeatureQuery(whereClause: whereClause, objectIds: objectIds, outFields: [], returnGeometry: false, returnCountOnly: true)
        let request = HTTPRequest.form(url: exchangeURL("query"), fields: query.formFields)
        let (value, attempts) = try await exchange.perform(request, operation: "count query", as: CountResult.self, retry: policy)
        return Retried(value: value.count, attempts: attempts)
    }
}
