public import FeatureModel

/// A feature service (`…/FeatureServer`) and its cached metadata: the service description and each layer's and
/// table's fields, domains and relationships.
///
/// An actor because tasks share the metadata cache; the hot path does not go through it: ``layer(id:)`` hands out
/// a ``FeatureLayerClient`` that talks to the transport directly.
///
/// ```swift
/// try await withCurlTransport { transport in
///     let service = FeatureService(url: "http://127.0.0.1:8080/arcgis/rest/services/parks/FeatureServer", transport: transport)
///     let info = try await service.load()
///     let parks = try await service.layerInfo(id: info.layers[0].id)
///     let count = try await service.layer(id: parks.id).count()
/// }
/// ```
public actor FeatureService {
    private enum State {
        case empty
        case loaded(ServiceInfo)
    }

    /// The service URL, `…/FeatureServer`.
    public nonisolated let url: String
    private nonisolated let transport: any HTTPTransport
    private nonisolated let exchange: FeatureServiceExchange
    private var state = State.empty
    private var layerInfos: [Int: LayerInfo] = [:]

    /// A client for the service at `url`, talking over `transport`; nothing is fetched until ``load()`` or another
    /// call needs it.
    ///
    /// The service and its layers use `transport` until it is shut down; ``withCurlTransport(configuration:isolation:_:)``
    /// scopes one.
    /// - Parameters:
    ///   - url: The service URL, `…/FeatureServer`.
    ///   - transport: Carries the HTTP requests (connection pool, timeouts, TLS).
    ///   - authentication: The token provider and where the token goes; `nil` (the default) sends none. On a 498
    ///     answer the token is refreshed once (single-flight) and the request replayed once.
    public init(url: String, transport: CurlTransport, authentication: TokenAuthentication? = nil) {
        self.init(url: url, transport: transport as any HTTPTransport, authentication: authentication)
    }

    /// A client for the service at `url` over any transport (an in-memory fake in tests); nothing is fetched until
    /// ``load()`` or another call needs it.
    /// - Parameters:
    ///   - url: The service URL, `…/FeatureServer`.
    ///   - transport: Carries the HTTP requests.
    package init(url: String, transport: any HTTPTransport) {
        self.url = url.hasSuffix("/") ? String(url.dropLast()) : url
        self.transport = transport
        self.exchange = FeatureServiceExchange(transport: transport)
    }

    /// A client for the service at `url` that authenticates every request (its layers' too) with a token and
    /// times retries on `clock`; nothing is fetched until needed.
    /// - Parameters:
    ///   - url: The service URL, `…/FeatureServer`.
    ///   - transport: Carries the HTTP requests.
    ///   - authentication: The token provider and where the token goes; `nil` sends none. On a 498 answer the
    ///     token is refreshed once (single-flight) and the request replayed once.
    ///   - clock: Times attempts and backoff sleeps; a manual clock in tests. Default `ContinuousClock()`.
    package init(url: String, transport: any HTTPTransport, authentication: TokenAuthentication?, clock: some Clock<Duration> = ContinuousClock()) {
        self.url = url.hasSuffix("/") ? String(url.dropLast()) : url
        self.transport = transport
        self.exchange = FeatureServiceExchange(transport: transport, authentication: authentication, clock: clock)
    }

    /// Fetches the service metadata (`GET …/FeatureServer?f=json`) and then every layer's and table's metadata
    /// (`GET …/FeatureServer/<id>?f=json`, concurrently), and caches them all, replacing what was cached.
    ///
    /// Concurrent calls each fetch; the last to finish wins the cache.
    /// - Parameter policy: How each metadata request is retried (they are idempotent); `nil` makes one attempt each.
    /// - Returns: The service metadata.
    /// - Throws: ``FeatureServiceError`` for the first request that failed (with a policy, once it gave up on it;
    ///   nothing is cached then); `CancellationError` when the task was cancelled.
    public func load(retry policy: RetryPolicy? = nil) async throws -> ServiceInfo {
        let info = try await fetchServiceInfo(retry: policy)
        let ids = info.layers.map(\.id) + info.tables.map(\.id)
        let exchange = self.exchange
        let url = self.url
        let layers = try await withThrowingTaskGroup(of: LayerInfo.self, returning: [Int: LayerInfo].self) { group in
            for id in ids {
                group.addTask { try await Self.fetchLayerInfo(id: id, serviceURL: url, exchange: exchange, retry: policy) }
            }
            var layers: [Int: LayerInfo] = [:]
            for try await layer in group { layers[layer.id] = layer }
            return layers
        }
        state = .loaded(info)
        layerInfos.merge(layers) { _, new in new }
        return info
    }

    /// The service metadata: cached, or loaded with ``load()``.
    /// - Throws: ``FeatureServiceError``; `CancellationError` when the task was cancelled.
    public func info() async throws -> ServiceInfo {
        if case .loaded(let info) = state { return info }
        return try await load()
    }

    /// The metadata of layer or table `id`: cached, or fetched (`GET …/FeatureServer/<id>?f=json`) and cached.
    /// - Parameters:
    ///   - id: The layer or table id.
    ///   - policy: How the request is retried when it is made; `nil` makes one attempt.
    /// - Throws: ``FeatureServiceError`` (an ArcGIS 400/404 error when the id does not exist);
    ///   `CancellationError` when the task was cancelled.
    public func layerInfo(id: Int, retry policy: RetryPolicy? = nil) async throws -> LayerInfo {
        if let cached = layerInfos[id] { return cached }
        let layer = try await Self.fetchLayerInfo(id: id, serviceURL: url, exchange: exchange, retry: policy)
        layerInfos[id] = layer
        return layer
    }

    /// A client for layer or table `id`, sharing this service's transport, authentication and clock; no request
    /// is made.
    public nonisolated func layer(id: Int) -> FeatureLayerClient {
        FeatureLayerClient(url: FeatureServiceExchange.appending(String(id), to: url), exchange: exchange)
    }

    private func fetchServiceInfo(retry policy: RetryPolicy?) async throws -> ServiceInfo {
        let request = HTTPRequest(url: FeatureServiceExchange.jsonURL(url))
        return try await Self.fetch(request, operation: "service metadata", as: ServiceInfo.self, exchange: exchange, retry: policy)
    }

    private static func fetchLayerInfo(
        id: Int, serviceURL: String, exchange: FeatureServiceExchange, retry policy: RetryPolicy?
    ) async throws -> LayerInfo {
        let layerURL = FeatureServiceExchange.appending(String(id), to: serviceURL)
        let request = HTTPRequest(url: FeatureServiceExchange.jsonURL(layerURL))
        return try await fetch(request, operation: "layer \(id) metadata", as: LayerInfo.self, exchange: exchange, retry: policy)
    }

    /// One metadata request: one attempt, or retried as `policy` allows.
    private static func fetch<T: Decodable>(
        _ request: HTTPRequest, operation: String, as type: T.Type, exchange: FeatureServiceExchange, retry policy: RetryPolicy?
    ) async throws -> T {
        guard let policy else { return try await exchange.perform(request, operation: operation, as: type) }
        return try await exchange.perform(request, operation: operation, as: type, retry: policy).value
    }
}
