import FeatureModel

/// The spatial filter of a query on a point layer: an envelope in WGS 84, edges included.
///
/// Read from `geometry` (an envelope as JSON `{"xmin":…,"ymin":…,"xmax":…,"ymax":…[,"spatialReference":…]}` or as
/// `xmin,ymin,xmax,ymax`), `geometryType` (default and only supported value `esriGeometryEnvelope`), `inSR`
/// (4326 or 102100/3857; default the geometry's own `spatialReference`, else the layer's, WGS 84) and `spatialRel`
/// (`esriSpatialRelIntersects` (default), `esriSpatialRelEnvelopeIntersects`, `esriSpatialRelContains`,
/// `esriSpatialRelWithin`; for points against an envelope they select the same rows: the points inside or on the
/// edge). A Web Mercator envelope is unprojected corner by corner, which is exact because the projection keeps
/// the axes apart.
///
/// Anything else is a 400 naming the parameter, never a silently unfiltered answer: other geometry types, other
/// spatial relationships, other spatial references, a filter on a table or on a layer whose geometries are not points.
struct EnvelopeFilter: Sendable, Hashable {
    var xmin: Double
    var ymin: Double
    var xmax: Double
    var ymax: Double

    /// The spatial relationships accepted, lower-cased.
    static let relationships: Set<String> = [
        "esrispatialrelintersects", "esrispatialrelenvelopeintersects", "esrispatialrelcontains", "esrispatialrelwithin",
    ]

    /// The filter the parameters describe, or nil when there is no `geometry`.
    /// - Parameters:
    ///   - storage: How the layer stores geometry; only point layers can be filtered.
    /// - Throws: ``ServiceError`` (400) naming `geometry`, `geometryType`, `inSR` or `spatialRel`.
    static func parse(_ parameters: RequestParameters, storage: LayerSchema.GeometryStorage) throws(ServiceError) -> EnvelopeFilter? {
        guard let text = parameters["geometry"] else { return nil }
        switch storage {
        case .point: break
        case .none: throw ServiceError.invalidParameter("geometry", reason: "a table has no geometry to filter on")
        case .json: throw ServiceError.invalidParameter("geometry", reason: "spatial filters are supported on point layers only")
        }
        if let type = parameters["geometryType"], type.trimmed.lowercased() != "esrigeometryenvelope" {
            throw ServiceError.invalidParameter("geometryType", reason: "only esriGeometryEnvelope is supported, got '\(type.trimmed)'")
        }
        if let relationship = parameters["spatialRel"], !relationships.contains(relationship.trimmed.lowercased()) {
            throw ServiceError.invalidParameter(
                "spatialRel",
                reason: "supported: esriSpatialRelIntersects, esriSpatialRelEnvelopeIntersects, esriSpatialRelContains, esriSpatialRelWithin"
            )
        }
        let (given, embedded) = try envelope(text)
        var corners = given
        var reference = QuerySpatialReference.wgs84
        if let inSR = parameters["inSR"] {
            guard let parsed = QuerySpatialReference(parameter: inSR) else {
                throw ServiceError.invalidParameter("inSR", reason: "supported: 4326, 102100 (3857)")
            }
            reference = parsed
        } else if let embedded {
            guard let parsed = QuerySpatialReference(wkid: embedded) else {
                throw ServiceError.invalidParameter("geometry", reason: "spatial reference \(embedded) is not supported (use 4326 or 102100)")
            }
            reference = parsed
        }
        if reference == .webMercator {
            let low = QuerySpatialReference.unproject(x: corners[0], y: corners[1])
            let high = QuerySpatialReference.unproject(x: corners[2], y: corners[3])
            corners = [low.longitude, low.latitude, high.longitude, high.latitude]
        }
        return EnvelopeFilter(
            xmin: min(corners[0], corners[2]), ymin: min(corners[1], corners[3]),
            xmax: max(corners[0], corners[2]), ymax: max(corners[1], corners[3])
        )
    }

    /// `[xmin, ymin, xmax, ymax]` and the embedded spatial reference's wkid, from JSON or a comma list.
    private static func envelope(_ text: String) throws(ServiceError) -> ([Double], Int64?) {
        let trimmed = text.trimmed
        if trimmed.hasPrefix("{") {
            guard case .object(let members)? = try? JSONReader.parse(trimmed) else {
                throw ServiceError.invalidParameter("geometry", reason: "not a JSON geometry")
            }
            guard members["xmin"] != nil else {
                throw ServiceError.invalidParameter("geometry", reason: "only envelopes are supported as a spatial filter")
            }
            var corners: [Double] = []
            for key in ["xmin", "ymin", "xmax", "ymax"] {
                guard let value = members[key]?.doubleValue, value.isFinite else {
                    throw ServiceError.invalidParameter("geometry", reason: "envelope \(key) must be a number")
                }
                corners.append(value)
            }
            return (corners, members["spatialReference"].flatMap(QuerySpatialReference.wkid(in:)))
        }
        let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0).trimmed) }
        guard parts.count == 4, parts.allSatisfy({ $0?.isFinite == true }) else {
            let reason = parts.count == 2 ? "only envelopes are supported as a spatial filter" : "expected xmin,ymin,xmax,ymax"
            throw ServiceError.invalidParameter("geometry", reason: reason)
        }
        return (parts.compactMap { $0 }, nil)
    }

    /// The SQL condition on the stored WGS 84 point columns.
    var sql: SQLFragment {
        SQLFragment(
            "(\(LayerSchema.xColumn) BETWEEN ? AND ? AND \(LayerSchema.yColumn) BETWEEN ? AND ?)",
            [.real(xmin), .real(xmax), .real(ymin), .real(ymax)]
        )
    }
}
