/// The resources of the minimal portal (`/arcgis/sharing/rest…`) that the ArcGIS API for Python reads when it
/// connects with `GIS("https://127.0.0.1:PORT/arcgis", verify_cert=False)` (real-clients.md §2).
///
/// Anonymous access only: the portal has no users, items or groups; it exists so the client accepts the server as
/// its `GIS` and then talks to the feature services directly.
enum PortalResource: String, Sendable, Hashable {
    /// `/arcgis/sharing/rest` (also `/arcgis/sharing`): `currentVersion`, read by `gis.version`.
    case root
    /// `/arcgis/sharing/rest/info`: `authInfo`.
    case info
    /// `/arcgis/sharing/rest/portals/self` (also `accounts/self`, its name before portal 1.6.2): the portal's
    /// description. The client needs `portalName` and `portalMode`, and reads `allSSL`.
    case portalSelf

    /// The portal resource at the lower-cased path `segments`, with or without the leading `arcgis`; nil for any other
    /// path.
    init?(segments: [String]) {
        var rest = segments[...]
        if rest.first == "arcgis" { rest = rest.dropFirst() }
        guard rest.first == "sharing" else { return nil }
        rest = rest.dropFirst()
        if rest.first == "rest" { rest = rest.dropFirst() }
        switch Array(rest) {
        case []: self = .root
        case ["info"]: self = .info
        case ["portals", "self"], ["accounts", "self"]: self = .portalSelf
        default: return nil
        }
    }
}

/// The JSON documents of the minimal portal.
enum PortalDocuments {
    /// The portal's REST version. Portal versions are not server versions: `2023.1` is ArcGIS Enterprise 11.1's, the
    /// server version this service reports in `/arcgis/rest/info`. The client compares it to pick request forms.
    static let currentVersion = "2023.1"

    /// The document for `resource`.
    static func document(_ resource: PortalResource) -> any Encodable {
        switch resource {
        case .root: return PortalRoot(currentVersion: currentVersion)
        case .info: return PortalInfo(authInfo: PortalInfo.AuthInfo(isTokenBasedSecurity: false))
        case .portalSelf: return PortalSelf()
        }
    }
}

/// `/sharing/rest`: `{"currentVersion":"2023.1"}`.
struct PortalRoot: Sendable, Hashable, Encodable {
    var currentVersion: String
}

/// `/sharing/rest/info`: no token service URL, so clients sign in anonymously.
struct PortalInfo: Sendable, Hashable, Encodable {
    struct AuthInfo: Sendable, Hashable, Encodable {
        var isTokenBasedSecurity: Bool
    }

    var authInfo: AuthInfo
}

/// `/sharing/rest/portals/self`: a single-tenant portal named `featureload` that serves plain-http service URLs
/// (`allSSL:false` keeps the client from rewriting the layers' http URLs to https).
struct PortalSelf: Sendable, Hashable, Encodable {
    var portalName = "featureload"
    var name = "featureload"
    var id = "featureload"
    var portalMode = "singletenant"
    var isPortal = true
    var allSSL = false
    var currentVersion = PortalDocuments.currentVersion
    var supportsOAuth = false
    var canSearchPublic = true
    var access = "public"
    var helperServices: [String: String] = [:]
    var portalProperties: [String: String] = [:]
}
