import FeatureModel

/// The resources the server answers, recognised from a URL path.
///
/// Fixed segments (`arcgis`, `rest`, `services`, `FeatureServer`, operation names) and service names match
/// case-insensitively; a trailing slash is ignored.
enum FeatureServerRoute: Sendable, Hashable {
    /// `/arcgis/rest/info` (also `/arcgis/info`, which clients probe).
    case restInfo
    /// `/arcgis/rest/services`.
    case catalog
    /// `/arcgis/rest/services/<name>/FeatureServer`.
    case service(String)
    /// `/arcgis/rest/services/<name>/FeatureServer/<id>`.
    case layer(service: String, layer: Int)
    /// `…/FeatureServer/<id>/query`.
    case query(service: String, layer: Int)
    /// `…/FeatureServer/<id>/applyEdits`.
    case applyEdits(service: String, layer: Int)

    /// The route for `path`, or nil when the server has no such resource.
    init?(path: String) {
        let segments = path.split(separator: "/").map { FormEncoding.unescape(String($0)) }
        let lowered = segments.map { $0.lowercased() }
        guard lowered.count >= 2, lowered[0] == "arcgis" else { return nil }
        if lowered == ["arcgis", "info"] {
            self = .restInfo
            return
        }
        guard lowered[1] == "rest", lowered.count >= 3 else { return nil }
        if lowered.count == 3 {
            switch lowered[2] {
            case "info": self = .restInfo
            case "services": self = .catalog
            default: return nil
            }
            return
        }
        guard lowered[2] == "services", lowered.count >= 5, lowered[4] == "featureserver" else { return nil }
        let service = segments[3]
        if lowered.count == 5 {
            self = .service(service)
            return
        }
        guard let layer = Int(lowered[5]), layer >= 0 else { return nil }
        switch lowered.count {
        case 6: self = .layer(service: service, layer: layer)
        case 7 where lowered[6] == "query": self = .query(service: service, layer: layer)
        case 7 where lowered[6] == "applyedits": self = .applyEdits(service: service, layer: layer)
        default: return nil
        }
    }

    /// The service the route addresses, if any.
    var serviceName: String? {
        switch self {
        case .restInfo, .catalog: return nil
        case .service(let name), .layer(let name, _), .query(let name, _), .applyEdits(let name, _): return name
        }
    }
}
