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
    /// `…/FeatureServer/<id>/addFeatures`, `updateFeatures` or `deleteFeatures`.
    case editOperation(service: String, layer: Int, operation: EditOperation)
    /// `…/FeatureServer/<id>/queryRelatedRecords`.
    case queryRelatedRecords(service: String, layer: Int)
    /// `…/FeatureServer/<id>/contingentValues`.
    case contingentValues(service: String, layer: Int)
    /// `…/FeatureServer/applyEdits` (edits of several layers in one transaction).
    case serviceApplyEdits(String)
    /// `…/FeatureServer/relationships`.
    case relationships(String)
    /// `…/FeatureServer/queryContingentValues`.
    case queryContingentValues(String)
    /// `…/FeatureServer/<id>/<oid>/attachments` (the listing).
    case attachments(service: String, layer: Int, objectId: Int64)
    /// `…/FeatureServer/<id>/<oid>/attachments/<attachmentId>` (the bytes).
    case attachment(service: String, layer: Int, objectId: Int64, attachmentId: Int64)
    /// `…/FeatureServer/<id>/<oid>/addAttachment`, `updateAttachment` or `deleteAttachments`.
    case attachmentEdit(service: String, layer: Int, objectId: Int64, operation: AttachmentOperation)
    /// `…/FeatureServer/<id>/queryAttachments`.
    case queryAttachments(service: String, layer: Int)
    /// `…/FeatureServer/uploads/…`.
    case uploads(service: String, UploadsRoute)
    /// `…/FeatureServer/query` (several layers at once, with `layerDefs`).
    case serviceQuery(String)
    /// The minimal portal: `/arcgis/sharing/rest`, `…/info`, `…/portals/self`.
    case portal(PortalResource)

    /// The per-operation edit endpoints of a layer.
    enum EditOperation: String, Sendable, Hashable {
        case addFeatures
        case updateFeatures
        case deleteFeatures
    }

    /// The route for `path`, or nil when the server has no such resource.
    init?(path: String) {
        // Most segments hold no escape: they are taken as they are (what unescaping would give) without a copy through bytes.
        let segments = path.split(separator: "/").map { segment in
            segment.utf8.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") } ? FormEncoding.unescape(segment) : String(segment)
        }
        let lowered = segments.map { $0.lowercased() }
        if let resource = PortalResource(segments: lowered) {
            self = .portal(resource)
            return
        }
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
        if lowered.count == 6 {
            switch lowered[5] {
            case "applyedits":
                self = .serviceApplyEdits(service)
                return
            case "relationships":
                self = .relationships(service)
                return
            case "querycontingentvalues":
                self = .queryContingentValues(service)
                return
            case "query":
                self = .serviceQuery(service)
                return
            default: break
            }
        }
        if lowered[5] == "uploads" {
            guard let route = UploadsRoute(segments: Array(segments.dropFirst(6))) else { return nil }
            self = .uploads(service: service, route)
            return
        }
        guard let layer = Int(lowered[5]), layer >= 0 else { return nil }
        if lowered.count >= 8 {
            guard let route = Self.attachmentRoute(service: service, layer: layer, lowered: Array(lowered.dropFirst(6))) else { return nil }
            self = route
            return
        }
        guard lowered.count == 7 else {
            if lowered.count == 6 {
                self = .layer(service: service, layer: layer)
                return
            }
            return nil
        }
        switch lowered[6] {
        case "query": self = .query(service: service, layer: layer)
        case "applyedits": self = .applyEdits(service: service, layer: layer)
        case "addfeatures": self = .editOperation(service: service, layer: layer, operation: .addFeatures)
        case "updatefeatures": self = .editOperation(service: service, layer: layer, operation: .updateFeatures)
        case "deletefeatures": self = .editOperation(service: service, layer: layer, operation: .deleteFeatures)
        case "queryrelatedrecords": self = .queryRelatedRecords(service: service, layer: layer)
        case "contingentvalues": self = .contingentValues(service: service, layer: layer)
        case "queryattachments": self = .queryAttachments(service: service, layer: layer)
        default: return nil
        }
    }

    /// The service the route addresses, if any.
    var serviceName: String? {
        switch self {
        case .restInfo, .catalog, .portal: return nil
        case .serviceQuery(let name): return name
        case .service(let name), .layer(let name, _), .query(let name, _), .applyEdits(let name, _), .editOperation(let name, _, _),
            .queryRelatedRecords(let name, _), .contingentValues(let name, _), .serviceApplyEdits(let name), .relationships(let name),
            .queryContingentValues(let name), .attachments(let name, _, _), .attachment(let name, _, _, _), .attachmentEdit(let name, _, _, _),
            .queryAttachments(let name, _), .uploads(let name, _):
            return name
        }
    }
}
