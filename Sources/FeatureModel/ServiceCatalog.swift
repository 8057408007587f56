/// The services directory: `GET …/rest/services?f=json`.
public struct ServiceCatalog: Sendable, Hashable, Codable {
    /// One service in the directory.
    public struct Service: Sendable, Hashable, Codable {
        /// The service name (with its folder, if any: `folder/name`).
        public var name: String
        /// `FeatureServer`, `MapServer`, …
        public var type: String

        /// A directory entry.
        public init(name: String, type: String) {
            self.name = name
            self.type = type
        }
    }

    public var currentVersion: Double?
    public var folders: [String]
    public var services: [Service]

    /// A services directory (no folders by default).
    public init(currentVersion: Double? = 11.1, folders: [String] = [], services: [Service]) {
        self.currentVersion = currentVersion
        self.folders = folders
        self.services = services
    }

    private enum CodingKeys: String, CodingKey { case currentVersion, folders, services }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        currentVersion = try c.decodeIfPresent(Double.self, forKey: .currentVersion)
        folders = try c.decodeIfPresent([String].self, forKey: .folders) ?? []
        services = try c.decodeIfPresent([Service].self, forKey: .services) ?? []
    }
}

/// Server information: `GET …/rest/info?f=json`. Clients read `currentVersion` and, to find the token
/// service, `authInfo`.
public struct RestInfo: Sendable, Hashable, Codable {
    /// How the server authenticates.
    public struct AuthInfo: Sendable, Hashable, Codable {
        public var isTokenBasedSecurity: Bool
        /// The token service URL when `isTokenBasedSecurity` is true.
        public var tokenServicesUrl: String?

        /// Authentication information.
        public init(isTokenBasedSecurity: Bool, tokenServicesUrl: String? = nil) {
            self.isTokenBasedSecurity = isTokenBasedSecurity
            self.tokenServicesUrl = tokenServicesUrl
        }
    }

    public var currentVersion: Double?
    public var fullVersion: String?
    public var authInfo: AuthInfo?

    /// Server information; by default version 11.1 without token security.
    public init(currentVersion: Double? = 11.1, fullVersion: String? = "11.1.0", authInfo: AuthInfo? = AuthInfo(isTokenBasedSecurity: false)) {
        self.currentVersion = currentVersion
        self.fullVersion = fullVersion
        self.authInfo = authInfo
    }
}
