import FeatureModel
import Hummingbird

/// Keeps a web page in the user's browser from editing or reading the service behind their back.
///
/// A page on another site can make the browser send "simple" requests to the server without asking it first: any
/// GET, and a POST whose body is `text/plain`, a form or multipart. Before this guard, `GET …/deleteFeatures?where=1=1`
/// from an `<img>` tag deleted every feature, a `text/plain` POST from `Origin: http://evil.example` turned on
/// faults, and a DNS-rebound name could read everything. The rules, each of which real clients (the ArcGIS API for
/// Python, esridump, GDAL, featureload) already keep:
///
/// - **Edits and admin changes only by POST.** applyEdits, add/update/deleteFeatures, attachment edits and uploads
///   by any other method get the envelope with code 405, and nothing changes.
/// - **Origin.** A request with an `Origin` header must come from the server's own origin (the scheme and the
///   `Host` it was sent to) or one of ``LocalFeatureServerConfiguration/BrowserPolicy/allowedOrigins``
///   (`--allow-origin`; `*` allows any). Otherwise code 403. Clients that are not browsers send no `Origin`.
/// - **Host** (only when bound to loopback): the `Host` header must name the listening address, `localhost`, a
///   loopback address or one of ``LocalFeatureServerConfiguration/BrowserPolicy/allowedHosts`` (`--allow-host`).
///   A page whose name was re-bound to 127.0.0.1 sends its own name and is refused with code 403.
struct BrowserGuardMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: LocalFeatureServerConfiguration.BrowserPolicy
    /// `http` or `https`: the scheme of the server's own origin.
    let scheme: String
    /// Lower-cased host names the `Host` header may carry; nil when the server does not check it (not on loopback).
    let hostNames: Set<String>?

    init(policy: LocalFeatureServerConfiguration.BrowserPolicy, bindHost: String, scheme: String) {
        self.policy = policy
        self.scheme = scheme
        if LocalFeatureServerConfiguration.isLoopback(bindHost) {
            var names: Set<String> = ["localhost", "127.0.0.1", "::1", Self.bare(bindHost.lowercased())]
            for name in policy.allowedHosts { names.insert(Self.bare(name.lowercased())) }
            hostNames = names
        } else {
            hostNames = nil
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let host = request.head.authority
        if let hostNames {
            guard let host, let name = Self.hostName(ofAuthority: host),
                hostNames.contains(name) || LocalFeatureServerConfiguration.isLoopbackIPv4(name)
            else {
                throw ServiceError(
                    ArcGISError(
                        code: 403, message: "Host not allowed.",
                        details: [
                            "This server listens on loopback and answers only requests addressed to it by a local name, not '\(host ?? "")'; start it with --allow-host NAME to accept another name."
                        ]))
            }
        }
        if let origin = request.headers[.origin], !isAllowed(origin: origin, host: host) {
            throw ServiceError(
                ArcGISError(
                    code: 403, message: "Origin not allowed.",
                    details: ["Requests from web pages at '\(origin)' are refused; start the server with --allow-origin \(origin) to allow them."]))
        }
        if request.method != .post, Self.changesData(path: request.uri.path) {
            throw ServiceError(
                ArcGISError(
                    code: 405, message: "Method not allowed.",
                    details: ["\(request.uri.path) changes data and is only supported via POST, not \(request.method.rawValue)."]))
        }
        return try await next(request, context)
    }

    /// Whether `origin` is the server's own (the scheme and the `Host` the request was sent to) or allowed.
    func isAllowed(origin: String, host: String?) -> Bool {
        let lowered = origin.lowercased()
        if let host, lowered == "\(scheme)://\(host.lowercased())" { return true }
        return policy.allowedOrigins.contains { $0 == "*" || $0.lowercased() == lowered }
    }

    /// Whether a request to `path` edits data or changes the server's settings.
    static func changesData(path: String) -> Bool {
        let segments = path.split(separator: "/")
        if segments.count >= 2, segments[0].lowercased() == "arcgis", segments[1].lowercased() == "admin" {
            // A GET of faults or stats only reads (the admin middleware changes settings only on POST); unknown admin
            // paths are its 404s.
            return segments.dropFirst(2).map { $0.lowercased() } == ["stats", "reset"]
        }
        switch FeatureServerRoute(path: path) {
        case .applyEdits, .editOperation, .serviceApplyEdits, .attachmentEdit: return true
        case .uploads(_, let route):
            switch route {
            case .upload, .register, .uploadPart, .commit, .delete: return true
            case .item, .parts: return false
            }
        default: return false
        }
    }

    /// The lower-cased host name of an authority (`name:port`, `[v6]:port`, `name`); nil when malformed.
    static func hostName(ofAuthority authority: String) -> String? {
        let lowered = authority.lowercased()
        if lowered.hasPrefix("[") {
            guard let close = lowered.firstIndex(of: "]") else { return nil }
            return String(lowered[lowered.index(after: lowered.startIndex)..<close])
        }
        let name = lowered.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return name.isEmpty ? nil : name
    }

    /// `name` without the brackets of an IPv6 literal.
    static func bare(_ name: String) -> String {
        name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
    }
}
