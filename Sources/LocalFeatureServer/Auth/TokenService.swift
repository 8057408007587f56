import Synchronization

/// Issues and checks tokens for the users of a ``UserDirectory``.
///
/// Isolation: a `Mutex` around the issued tokens (small synchronous state). Time comes from the injected
/// ``LocalFeatureServerConfiguration/Auth/now`` so tests expire tokens without sleeping. Tokens are 256-bit random
/// hex strings from the system generator; they live in memory only and end with the server.
final class TokenService: Sendable {
    /// What a token grants.
    struct Grant: Sendable, Hashable {
        var username: String
        /// Epoch milliseconds after which the token is refused.
        var expires: Int64
    }

    /// The verdict on a request's token.
    enum Check: Sendable, Hashable {
        case valid(username: String)
        /// No token at all: 499.
        case missing
        /// A token this server never issued: 498.
        case unknown
        /// An issued token past its expiry: 498.
        case expired
    }

    private let settings: LocalFeatureServerConfiguration.Auth
    private let users: UserDirectory
    private let grants = Mutex<[String: Grant]>([:])

    /// A token service for `settings.users` (an empty directory when nil).
    init(_ settings: LocalFeatureServerConfiguration.Auth) {
        self.settings = settings
        users = settings.users ?? UserDirectory([:])
    }

    /// A new token for `username`, or nil when the credentials are wrong.
    /// - Parameter expirationMinutes: The requested lifetime; nil takes the default. Capped by the maximum.
    func generate(username: String, password: String, expirationMinutes: Int?) -> (token: String, grant: Grant)? {
        guard users.verify(username: username, password: password) else { return nil }
        let now = settings.now()
        let minutes = Self.lifetime(requested: expirationMinutes, settings: settings)
        let grant = Grant(username: username, expires: now + Int64(minutes) * 60_000)
        var generator = SystemRandomNumberGenerator()
        let token = (0..<4).map { _ in Self.hex(generator.next()) }.joined()
        grants.withLock { grants in
            if grants.count >= 1024 { grants = grants.filter { $0.value.expires > now } }
            grants[token] = grant
        }
        return (token, grant)
    }

    /// The verdict on `token` now.
    func check(_ token: String?) -> Check {
        let grant = token.flatMap { token in grants.withLock { $0[token] } }
        return Self.evaluate(token: token, grant: grant, now: settings.now())
    }

    /// The verdict on `token`, issued as `grant` (nil: never issued), at `now` (epoch ms). Pure.
    static func evaluate(token: String?, grant: Grant?, now: Int64) -> Check {
        guard let token, !token.isEmpty else { return .missing }
        guard let grant else { return .unknown }
        return now < grant.expires ? .valid(username: grant.username) : .expired
    }

    /// The granted lifetime in minutes: `requested` (or the default), at least 1, at most the maximum. Pure.
    static func lifetime(requested: Int?, settings: LocalFeatureServerConfiguration.Auth) -> Int {
        let maximum = max(1, settings.maximumExpirationMinutes)
        return min(max(requested ?? settings.defaultExpirationMinutes, 1), maximum)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
