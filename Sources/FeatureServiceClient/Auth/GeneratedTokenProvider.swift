import FeatureModel
import Foundation

/// Tokens from a user name and password through generateToken (`POST …/arcgis/tokens/generateToken`, form
/// encoded), renewed shortly before they expire and, single-flight, when the service answers 498.
///
/// An actor because every request of a client shares its token. Its state is an enum: no token yet, a valid
/// token, or a refresh in flight. While a refresh is in flight every caller awaits the same stored `Task` — one
/// generateToken request however many requests hit 498 at once. The refresh task is not cancelled when a caller
/// is: the others still need it. The password never appears in a description, error or log.
///
/// ```swift
/// let provider = GeneratedTokenProvider(
///     tokenURL: "https://gis.example.com/arcgis/tokens/generateToken",
///     credentials: .init(username: "editor", password: secret), transport: transport)
/// let layer = FeatureLayerClient(url: layerURL, transport: transport, authentication: .init(provider: provider))
/// ```
public actor GeneratedTokenProvider: TokenProvider, CustomStringConvertible {
    /// A user name and password; the password shows in no description, debug output or reflection.
    public struct Credentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// The user name.
        public var username: String
        /// The password.
        public var password: String

        /// Credentials for `username`.
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }

        /// The username, with the password redacted.
        public var description: String { "Credentials(username: \(username), password: redacted)" }
        /// The username, with the password redacted.
        public var debugDescription: String { description }
        /// A mirror showing the username only, so dumps and debuggers never print the password.
        public var customMirror: Mirror { Mirror(self, children: ["username": username], displayStyle: .struct) }
    }

    private enum State {
        case empty
        case valid(AccessToken)
        case refreshing(Task<AccessToken, any Error>)
    }

    /// The generateToken URL, `https://<host>/arcgis/tokens/generateToken`.
    public nonisolated let tokenURL: String
    private nonisolated let credentials: Credentials
    private nonisolated let exchange: FeatureServiceExchange
    private nonisolated let expiration: Duration
    private nonisolated let refreshMargin: Duration
    private nonisolated let now: @Sendable () -> Int64
    private var state = State.empty
    /// generateToken requests made so far (for tests and diagnostics).
    package private(set) var generatedCount = 0

    /// A provider; no request is made until the first token is needed.
    /// - Parameters:
    ///   - tokenURL: The generateToken URL.
    ///   - credentials: The user name and password.
    ///   - transport: Carries the generateToken requests.
    ///   - expiration: The lifetime to ask for (`expiration`, sent in whole minutes); default 60 minutes.
    ///   - refreshMargin: Renew this long before `expires`; default 2 minutes.
    ///   - now: Milliseconds since 1970 on the wall clock, compared with `expires`; `nil` reads the system clock.
    public init(
        tokenURL: String, credentials: Credentials, transport: CurlTransport, expiration: Duration = .seconds(3600),
        refreshMargin: Duration = .seconds(120), now: (@Sendable () -> Int64)? = nil
    ) {
        self.init(
            tokenURL: tokenURL, credentials: credentials, transport: transport as any HTTPTransport, expiration: expiration,
            refreshMargin: refreshMargin, now: now)
    }

    /// A provider over any transport (an in-memory fake in tests); the parameters are those of the public initializer.
    package init(
        tokenURL: String, credentials: Credentials, transport: any HTTPTransport, expiration: Duration = .seconds(3600),
        refreshMargin: Duration = .seconds(120),
        now: (@Sendable () -> Int64)? = nil
    ) {
        self.tokenURL = tokenURL
        self.credentials = credentials
        self.exchange = FeatureServiceExchange(transport: transport)
        self.expiration = expiration
        self.refreshMargin = refreshMargin
        self.now = now ?? { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
    }

    /// The token URL without query parameters, and the username; never the password or a token.
    public nonisolated var description: String { "GeneratedTokenProvider(\(HTTPRequest.redact(tokenURL)), \(credentials))" }

    /// The current token, generated first when there is none or it expires within the refresh margin.
    /// - Throws: ``FeatureServiceError`` (``FeatureServiceError/isAuthenticationFailure`` when the credentials were
    ///   refused); `CancellationError`.
    public func token() async throws -> AccessToken {
        switch state {
        case .valid(let token) where !isExpiring(token): return token
        case .refreshing(let task): return try await task.value
        case .empty, .valid: return try await refresh()
        }
    }

    /// A new token unless another caller already replaced `rejected`; concurrent callers share one refresh.
    /// - Throws: ``FeatureServiceError``; `CancellationError`.
    public func refreshToken(replacing rejected: AccessToken) async throws -> AccessToken? {
        switch state {
        case .valid(let token) where token.value != rejected.value && !isExpiring(token): return token
        case .refreshing(let task): return try await task.value
        case .empty, .valid: return try await refresh()
        }
    }

    private func isExpiring(_ token: AccessToken) -> Bool {
        guard let expires = token.expires else { return false }
        return now() + refreshMargin.nanoseconds / 1_000_000 >= expires
    }

    /// Starts a refresh, stores it so that other callers join it, and awaits it.
    private func refresh() async throws -> AccessToken {
        let request = generateRequest()
        let exchange = self.exchange
        // The single-flight refresh: a stored Task every concurrent caller awaits (an unstructured task, because
        // its result outlives the caller that started it).
        let task = Task { try await Self.generate(request, exchange: exchange) }
        state = .refreshing(task)
        generatedCount += 1
        do {
            let token = try await task.value
            if case .refreshing(let current) = state, current == task { state = .valid(token) }
            return token
        } catch {
            if case .refreshing(let current) = state, current == task { state = .empty }
            throw error
        }
    }

    private nonisolated func generateRequest() -> HTTPRequest {
        let minutes = max(1, expiration.nanoseconds / 60_000_000_000)
        return HTTPRequest.form(
            url: tokenURL,
            fields: [
                FormField("username", credentials.username), FormField("password", credentials.password),
                FormField("client", "requestip"), FormField("expiration", String(minutes)), FormField("f", "json"),
            ])
    }

    private static func generate(_ request: HTTPRequest, exchange: FeatureServiceExchange) async throws -> AccessToken {
        let answer: GenerateTokenAnswer
        do {
            answer = try await exchange.perform(request, operation: "generateToken", as: GenerateTokenAnswer.self)
        } catch let error as FeatureServiceError {
            guard let arcgis = error.arcgisError else { throw error }
            // The service refused the credentials; its message does not contain the password.
            throw FeatureServiceError.authentication(
                "generateToken answered ArcGIS error \(arcgis.code): \(arcgis.message)", operation: "generateToken",
                url: request.url)
        }
        guard !answer.token.isEmpty else {
            throw FeatureServiceError.authentication("generateToken answered an empty token", operation: "generateToken", url: request.url)
        }
        return AccessToken(answer.token, expires: answer.expires)
    }
}

/// generateToken's answer: `{"token":"…","expires":<epoch ms>,"ssl":<bool>}`.
private struct GenerateTokenAnswer: Decodable {
    var token: String
    var expires: Int64?
}
