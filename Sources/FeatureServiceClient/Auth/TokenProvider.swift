import FeatureModel

/// An ArcGIS token whose text never shows in descriptions, debug output or reflection, so it cannot leak into
/// errors, logs or reports by accident. Read ``value`` only to put it on the wire.
public struct AccessToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The token text.
    public let value: String
    /// When the token expires, in milliseconds since 1970 (the `expires` of generateToken); `nil` when unknown.
    public let expires: Int64?

    /// A token.
    public init(_ value: String, expires: Int64? = nil) {
        self.value = value
        self.expires = expires
    }

    /// The expiry, with the token redacted.
    public var description: String { "AccessToken(redacted\(expires.map { ", expires \($0)" } ?? ""))" }
    /// The expiry, with the token redacted.
    public var debugDescription: String { description }
    /// A mirror showing the expiry only, so dumps and debuggers never print the token.
    public var customMirror: Mirror { Mirror(self, children: ["expires": expires as Any], displayStyle: .struct) }
}

/// Supplies the token the client sends with every request, and a new one when the service answers 498.
///
/// Implementations are `Sendable` and called concurrently. ``refreshToken(replacing:)`` must be single-flight: when
/// many requests hit 498 at once, one refresh serves them all (``GeneratedTokenProvider`` stores the in-flight
/// refresh and lets every caller await it).
public protocol TokenProvider: Sendable {
    /// The token to send now; a provider that knows the expiry refreshes it shortly before.
    /// - Throws: ``FeatureServiceError`` (``FeatureServiceError/isAuthenticationFailure`` when the credentials were
    ///   refused); `CancellationError`.
    func token() async throws -> AccessToken

    /// A token to use instead of `rejected`, which the service refused with 498; `nil` when this provider cannot
    /// get another (the 498 then stands).
    /// - Throws: ``FeatureServiceError``; `CancellationError`.
    func refreshToken(replacing rejected: AccessToken) async throws -> AccessToken?
}

/// A token given once, such as one read from the environment by the CLI. It cannot be refreshed.
public struct StaticTokenProvider: TokenProvider, CustomStringConvertible {
    private let token: AccessToken

    /// A provider that always answers `token`.
    public init(_ token: String) {
        self.token = AccessToken(token)
    }

    /// The fixed token.
    public func token() async throws -> AccessToken { token }

    /// Always `nil`: a static token cannot be renewed.
    public func refreshToken(replacing rejected: AccessToken) async throws -> AccessToken? { nil }

    /// A description with the token redacted.
    public var description: String { "StaticTokenProvider(redacted)" }
}

/// Where the client puts the token.
public enum TokenPlacement: Sendable, Hashable {
    /// The header `X-Esri-Authorization: Bearer <token>`, as the ArcGIS API for Python sends it (the default):
    /// the token stays out of URLs and bodies.
    case header
    /// A `token` form field (POST) or query parameter (GET), as older clients send it.
    case parameter
}

/// How a client authenticates: a token provider and where the token goes.
public struct TokenAuthentication: Sendable {
    /// Supplies and refreshes tokens.
    public var provider: any TokenProvider
    /// Where the token goes. Default ``TokenPlacement/header``.
    public var placement: TokenPlacement

    /// Authentication with `provider`, placing the token as `placement`.
    public init(provider: any TokenProvider, placement: TokenPlacement = .header) {
        self.provider = provider
        self.placement = placement
    }

    /// `request` carrying `token`.
    func authorize(_ request: HTTPRequest, with token: AccessToken) -> HTTPRequest {
        var request = request
        switch placement {
        case .header:
            request.headers.removeAll { $0.name.lowercased() == "x-esri-authorization" }
            request.headers.append(HTTPHeader("X-Esri-Authorization", "Bearer " + token.value))
        case .parameter:
            let field = FormEncoding.encodedBytes([FormField("token", token.value)])
            let isForm = request.headers.contains {
                $0.name.lowercased() == "content-type" && $0.value.hasPrefix("application/x-www-form-urlencoded")
            }
            if request.method == .post && isForm, var body = request.body.bytes {
                if !body.isEmpty { body.append(UInt8(ascii: "&")) }
                request.body = .bytes(body + field)
            } else {
                request.url += (request.url.contains("?") ? "&" : "?") + String(decoding: field, as: UTF8.self)
            }
        }
        return request
    }
}
