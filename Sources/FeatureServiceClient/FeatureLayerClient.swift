public import FeatureModel

/// Queries and edits one layer or table (`…/FeatureServer/<id>`): the hot path of a load test.
///
/// A plain `Sendable` value with no state beyond its URL and transport: copy it into as many tasks as you like.
/// Queries and edits are POSTed as `application/x-www-form-urlencoded`; every answer is checked for an ArcGIS
/// error body before it is decoded. Cancelling the calling task cancels the HTTP request.
///
/// ```swift
/// let layer = FeatureLayerClient(url: serviceURL + "/0", transport: transport)
/// let count = try await layer.count(where: "STATUS = 'open'")
/// let result = try await layer.applyEdits(LayerEdits(adds: [feature]), options: .init(rollbackOnFailure: false))
/// for failure in result.failures { print(failure.error?.description ?? "") }
/// ```
public struct FeatureLayerClient: Sendable {
    /// The layer URL, `…/FeatureServer/<id>`.
    public let url: String
    let exchange: FeatureServiceExchange
    /// `…/<id>/applyEdits`, made once: every edit of a load test goes there.
    let applyEditsURL: String

    /// A client for the layer at `url`.
    /// - Parameters:
    ///   - url: The layer or table URL, `…/FeatureServer/<id>`.
    ///   - transport: Carries the HTTP requests.
    package init(url: String, transport: any HTTPTransport) {
        self.url = url
        self.exchange = FeatureServiceExchange(transport: transport)
        applyEditsURL = FeatureServiceExchange.appending("applyEdits", to: url)
    }

    /// A client for the layer at `url` that authenticates with a token and times retries on `clock`.
    /// - Parameters:
    ///   - url: The layer or table URL, `…/FeatureServer/<id>`.
    ///   - transport: Carries the HTTP requests.
    ///   - authentication: The token provider and where the token goes; `nil` sends none. On a 498 answer the
    ///     token is refreshed once (single-flight) and the request replayed once.
    ///   - clock: Times attempts and backoff sleeps; a manual clock in tests. Default `ContinuousClock()`.
    package init(
        url: String, transport: any HTTPTransport, authentication: TokenAuthentication?, clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.url = url
        self.exchange = FeatureServiceExchange(transport: transport, authentication: authentication, clock: clock)
        applyEditsURL = FeatureServiceExchange.appending("applyEdits", to: url)
    }

    init(url: String, exchange: FeatureServiceExchange) {
        self.url = url
        self.exchange = exchange
        applyEditsURL = FeatureServiceExchange.appending("applyEdits", to: url)
    }

    /// Runs a query (`POST …/<id>/query`) and returns its features.
    /// - Parameter query: The query; `returnCountOnly` and `returnIdsOnly` belong to ``count(where:objectIds:)``
    ///   and ``objectIds(where:)``, which decode those answers.
    /// - Returns: The feature set, with `exceededTransferLimit` telling whether more rows match.
    /// - Throws: ``FeatureServiceError``; `CancellationError` when the task was cancelled.
    public func query(_ query: FeatureQuery) async throws -> FeatureSet {
        try await post("query", fields: query.formFields, as: FeatureSet.self)
    }

    /// Counts the rows matching `where` (and `objectIds`, when given) with `returnCountOnly=true`.
    /// - Parameters:
    ///   - where: A SQL-92 where clause; `1=1` counts every row.
    ///   - objectIds: Restricts the count to these object IDs.
    /// - Returns: The number of matching rows.
    /// - Throws: ``FeatureServiceError``; `CancellationError` when the task was cancelled.
    public func count(where whereClause: String = "1=1", objectIds: [Int64]? = nil) async throws -> Int {
        let query = FeatureQuery(
            whereClause: whereClause, objectIds: objectIds, outFields: [], returnGeometry: false, returnCountOnly: true)
        return try await post("query", fields: query.formFields, as: CountResult.self, operation: "count query").count
    }

    /// The object IDs of the rows matching `where`, with `returnIdsOnly=true` (never capped by `maxRecordCount`).
    /// - Parameter where: A SQL-92 where clause; `1=1` lists every row.
    /// - Returns: The object IDs, in the order the service sent them.
    /// - Throws: ``FeatureServiceError``; `CancellationError` when the task was cancelled.
    public func objectIds(where whereClause: String = "1=1") async throws -> [Int64] {
        let query = FeatureQuery(whereClause: whereClause, outFields: [], returnGeometry: false, returnIdsOnly: true)
        return try await post("query", fields: query.formFields, as: ObjectIdsResult.self, operation: "ids query").objectIds
    }

    /// Every feature matching `query`, fetched page by page with `resultOffset` until the service stops
    /// reporting `exceededTransferLimit`.
    ///
    /// Pages follow one another, not in parallel. For stable pages give the query an `orderByFields` (such as
    /// the object-ID field); without it a service may order rows differently from page to page.
    /// - Parameters:
    ///   - query: The query; its `resultOffset` is where paging starts (default 0).
    ///   - pageSize: Rows per page (`resultRecordCount`); `nil` uses the query's, or the service's `maxRecordCount`.
    ///   - policy: How each page request is retried (queries are idempotent); `nil` makes one attempt per page.
    /// - Returns: The features of all pages, in order.
    /// - Throws: ``FeatureServiceError`` (also when a page exceeds the limit yet holds no rows, which would never
    ///   end; with a policy, once it gave up on a page); `CancellationError` when the task was cancelled.
    public func queryAll(_ query: FeatureQuery, pageSize: Int? = nil, retry policy: RetryPolicy? = nil) async throws -> [Feature] {
        var page = query
        page.returnCountOnly = false
        page.returnIdsOnly = false
        if let pageSize { page.resultRecordCount = pageSize }
        var offset = query.resultOffset ?? 0
        var features: [Feature] = []
        // Each page advances the offset by at least one row, so the loop ends; the cap guards against a service
        // that never stops claiming more rows.
        for _ in 0..<Self.maxPages {
            try Task.checkCancellation()
            page.resultOffset = offset
            let set = try await post("query", fields: page.formFields, as: FeatureSet.self, operation: "paged query", retry: policy)
            features.append(contentsOf: set.features)
            guard set.exceededTransferLimit == true else { return features }
            guard !set.features.isEmpty else {
                throw FeatureServiceError.invalidRequest(
                    "the service reported more rows (exceededTransferLimit) at offset \(offset) but sent none; it may not support paging",
                    operation: "paged query", url: exchangeURL("query"))
            }
            offset += set.features.count
        }
        throw FeatureServiceError.invalidRequest(
            "gave up after \(Self.maxPages) pages; use a larger pageSize", operation: "paged query", url: exchangeURL("query"))
    }

    /// The most pages ``queryAll(_:pageSize:)`` fetches.
    static let maxPages = 100_000

    /// Applies adds, updates and deletes to this layer (`POST …/<id>/applyEdits`).
    ///
    /// Per-edit failures are not thrown: with `rollbackOnFailure=false` they come back as `success: false` items,
    /// collected in ``ApplyEditsResult/failures``. With `rollbackOnFailure=true` (the default) one bad edit makes
    /// the service roll back the whole batch and answer with an error body, which is thrown.
    /// - Parameters:
    ///   - edits: The adds, updates and deletes.
    ///   - options: Rollback, GlobalID and edit-moment options.
    /// - Returns: The per-edit results.
    /// - Throws: ``FeatureServiceError``, with ``FeatureServiceError/arcgisError`` set when the service rejected
    ///   the batch (rolled back); `CancellationError` when the task was cancelled — the edits may then have been
    ///   applied or not.
    public nonisolated(nonsending) func applyEdits(_ edits: LayerEdits, options: ApplyEditsOptions = .init()) async throws -> ApplyEditsResult {
        let request = applyEditsRequest(edits, options: options)
        return try await exchange.perform(request, operation: "applyEdits", as: ApplyEditsResult.self)
    }

    /// The applyEdits request of `edits`.
    func applyEditsRequest(_ edits: LayerEdits, options: ApplyEditsOptions) -> HTTPRequest {
        HTTPRequest.form(url: applyEditsURL, encodedBody: edits.formBody(options: options))
    }

    func exchangeURL(_ operation: String) -> String {
        FeatureServiceExchange.appending(operation, to: url)
    }

    /// POSTs `fields` to `path` and decodes the answer: one attempt, or retried as `policy` allows (for idempotent
    /// operations only).
    func post<T: Decodable>(
        _ path: String, fields: [FormField], as type: T.Type, operation: String? = nil, retry policy: RetryPolicy? = nil
    ) async throws -> T {
        let request = HTTPRequest.form(url: exchangeURL(path), fields: fields)
        guard let policy else { return try await exchange.perform(request, operation: operation ?? path, as: type) }
        return try await exchange.perform(request, operation: operation ?? path, as: type, retry: policy).value
    }
}
