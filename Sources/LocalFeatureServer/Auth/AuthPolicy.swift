import FeatureModel

/// Which resources need a token, and where a request carries one. Pure.
enum AuthPolicy {
    /// How token security treats a path.
    enum Access: Sendable, Hashable {
        /// `/arcgis/rest/info` (and `/arcgis/info`): public, answered with `authInfo`.
        case restInfo
        /// The token service: `/arcgis/tokens/generateToken`, `/arcgis/sharing/rest/generateToken`.
        case generateToken
        /// Public: the token service root and the portal's `info`.
        case open
        /// Everything else: needs a valid token.
        case protected
    }

    /// The access rule for a URL path (case-insensitive; a trailing slash is ignored).
    static func access(_ path: String) -> Access {
        let segments = path.split(separator: "/").map { FormEncoding.unescape(String($0)).lowercased() }
        switch segments {
        case ["arcgis", "rest", "info"], ["arcgis", "info"]: return .restInfo
        case ["arcgis", "tokens", "generatetoken"], ["arcgis", "sharing", "rest", "generatetoken"], ["arcgis", "sharing", "generatetoken"]:
            return .generateToken
        case ["arcgis", "tokens"], ["arcgis", "sharing", "rest", "info"]: return .open
        default: return .protected
        }
    }

    /// The token in the request headers: `X-Esri-Authorization: Bearer <t>` first, then `Authorization: Bearer <t>`.
    static func bearerToken(esriAuthorization: String?, authorization: String?) -> String? {
        for value in [esriAuthorization, authorization] {
            guard let value else { continue }
            let trimmed = value.trimmed
            guard trimmed.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { continue }
            let token = String(trimmed.dropFirst(7)).trimmed
            if !token.isEmpty { return token }
        }
        return nil
    }
}
