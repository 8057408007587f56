/// The services directory: `GET …/rest/services?f=json`.
package struct ServiceCatalog: Sendable, Hashable, Codable {
    /// One service in the directory.
    package struct Service: Sendable, Hashable, Codable {
        /// The service name (with its folder, if any: `folder/name`).
        package var name: String
        /// `FeatureServer`, `MapServer`, …
        package var type: String

        /// A directory entry.
        package init(name: String, type: String) {
            self.name = name
            self.type = type
        }
    }

    package var currentVersion: Double?
    package var folders: [String]
    package var services: [Service]

    /// A services directory (no folders by default).
    package init(currentVersion: Double? = 11.1, folders: [String] = [], services: [Service]) {
        self.currentVersion = currentVersion
        self.folders = folders
        self.services = services
    }

    private enum CodingKeys: String, CodingKey { case currentVersion, folders, services }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        currentVersion = try c.decodeIfPresent(Double.self, forKey: .currentVersion)
        folders = try c.decodeIfPresent([String].self, forKey: .folders) ?? []
        services = try c.decodeIfPresent([Service].self, forKey: .services) ?? []
    }
}

/// Server information: `GET …/rest/info?f=json`. Clients read `currentVersion` and, to find the token
/// service, `authInfo`.
package struct RestInfo: Sendable, Hashable, Codable {
    /// How the server authenticates.
    package struct AuthInfo: Sendable, Hashable, Codable {
        package var isTokenBasedSecurity: Bool
        /// The token service URL when `isTokenBasedSecurity` is true.
        package var tokenServicesUrl: String?

        /// Authentication information.
        package init(isTokenBasedSecurity: Bool, tokenServicesUrl: String? = nil) {
            self.isTokenBasedSecurity = isTokenBasedSecurity
            self.tokenServicesUrl = tokenServicesUrl
        }
    }

    package var currentVersion: Double?
    var fullVersion: String?
    package var authInfo: AuthInfo?

    /// Server information; by default version 11.1 without token security.
    package init(currentVersion: Double? = 11.1, fullVersion: String? = "11.1.0", authInfo: AuthInfo? = AuthInfo(isTokenBasedSecurity: false)) {
        self.currentVersion = currentVersion
        self.fullVersion = fullVersion
        self.authInfo = authInfo
    }
}
