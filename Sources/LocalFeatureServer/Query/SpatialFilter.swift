import FeatureModel
import GEOSSupport

/// The spatial filter of a query: a geometry in WGS 84 and how a feature must relate to it.
///
/// Read from `geometry` (ArcGIS JSON: an envelope `{"xmin":…}`, a point `{"x":…,"y":…}`, a multipoint `{"points":…}`,
/// a polyline `{"paths":…}` or a polygon `{"rings":…}`; or the short forms `xmin,ymin,xmax,ymax` and `x,y`),
/// `geometryType` (the kind, checked against the geometry; inferred from it when absent), `inSR` (4326 or
/// 102100/3857; default the geometry's own `spatialReference`, else WGS 84) and `spatialRel`, whose meanings are
/// ArcGIS': the filter geometry is the subject.
///
/// - `esriSpatialRelIntersects` (default): the feature and the filter share a point (edges included);
/// - `esriSpatialRelEnvelopeIntersects`: their boxes share a point;
/// - `esriSpatialRelContains`: the filter contains the feature (no part of it outside, some of it inside);
/// - `esriSpatialRelWithin`: the filter lies within the feature (a box inside a park's polygon selects the park).
///
/// A Web Mercator filter is unprojected vertex by vertex; an unclosed polygon ring is closed, as ArcGIS does.
/// Anything else is a 400 naming the parameter, never a silently unfiltered answer: other geometry types and
/// relationships, other spatial references, a geometry GEOS cannot read (a ring of three points, a hole outside
/// every outer ring), a filter on a table.
struct SpatialFilter: Sendable, Hashable {
    enum Relation: Sendable, Hashable {
        case intersects
        case envelopeIntersects
        case contains
        case within
    }

    /// The filter geometry, in WGS 84.
    var geometry: Geometry
    var relation: Relation
    /// The box around ``geometry``.
    var bounds: ShapeBounds

    /// Whether the filter is an envelope (its geometry its own box).
    var isEnvelope: Bool {
        if case .envelope = geometry { return true }
        return false
    }

    static let relations: [String: Relation] = [
        "esrispatialrelintersects": .intersects, "esrispatialrelenvelopeintersects": .envelopeIntersects,
        "esrispatialrelcontains": .contains, "esrispatialrelwithin": .within,
    ]

    static let geometryTypes: [String: GeometryType] = Dictionary(
        uniqueKeysWithValues: GeometryType.allCases.map { ($0.rawValue.lowercased(), $0) })

    /// The filter the parameters describe, or nil when there is no `geometry`.
    /// - Throws: ``ServiceError`` (400) naming `geometry`, `geometryType`, `inSR` or `spatialRel`.
    static func parse(_ parameters: RequestParameters, storage: LayerSchema.GeometryStorage) throws(ServiceError) -> SpatialFilter? {
        guard let text = parameters["geometry"] else { return nil }
        if storage == .none { throw ServiceError.invalidParameter("geometry", reason: "a table has no geometry to filter on") }
        let type = try option(
            parameters, "geometryType", in: geometryTypes,
            supported: "esriGeometryEnvelope, esriGeometryPoint, esriGeometryMultipoint, esriGeometryPolyline, esriGeometryPolygon")
        let relation =
            try option(
                parameters, "spatialRel", in: relations,
                supported: "esriSpatialRelIntersects, esriSpatialRelEnvelopeIntersects, esriSpatialRelContains, esriSpatialRelWithin")
            ?? .intersects
        let (given, embedded) = try geometry(text, type: type)
        let reference = try spatialReference(parameters["inSR"], embedded: embedded)
        var geometry = closingRings(given)
        if reference == .webMercator {
            geometry = geometry.mappingCoordinates { x, y in
                let unprojected = QuerySpatialReference.unproject(x: x, y: y)
                return (unprojected.longitude, unprojected.latitude)
            }
        }
        guard geometry.allCoordinates({ $0.isFinite && $1.isFinite }), let bounds = ShapeBounds(geometry) else {
            throw ServiceError.invalidParameter("geometry", reason: "the geometry has no vertex, or one that is not a finite number")
        }
        do {
            _ = try GEOSContext().geometry(geometry)
        } catch {
            throw ServiceError.invalidParameter("geometry", reason: error.message)
        }
        return SpatialFilter(geometry: geometry, relation: relation, bounds: bounds)
    }

    /// The value `table` has for parameter `name` (compared lower-cased), nil when it is not given.
    /// - Throws: ``ServiceError`` (400) naming `name` and what is `supported`, for any other value.
    private static func option<Value>(
        _ parameters: RequestParameters, _ name: String, in table: [String: Value], supported: String
    ) throws(ServiceError) -> Value? {
        guard let given = parameters[name] else { return nil }
        guard let value = table[given.trimmed.lowercased()] else { throw ServiceError.invalidParameter(name, reason: "supported: \(supported)") }
        return value
    }

    /// The geometry of `text` (JSON or a comma list) and its embedded spatial reference's wkid, checked against `type`.
    private static func geometry(_ text: String, type: GeometryType?) throws(ServiceError) -> (Geometry, Int64?) {
        let trimmed = text.trimmed
        let found: Geometry
        var embedded: Int64?
        if trimmed.hasPrefix("{") {
            guard case .object(let members)? = try? JSONReader.parse(trimmed), let decoded = try? WireJSON.decode(Geometry.self, from: trimmed)
            else {
                throw ServiceError.invalidParameter(
                    "geometry", reason: "not a JSON geometry (x/y, points, paths, rings or xmin… with numeric coordinates)")
            }
            found = decoded
            embedded = members["spatialReference"].flatMap(QuerySpatialReference.wkid(in:))
        } else {
            let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0).trimmed) }
            guard parts.count == 4 || parts.count == 2, parts.allSatisfy({ $0?.isFinite == true }) else {
                throw ServiceError.invalidParameter("geometry", reason: "expected xmin,ymin,xmax,ymax or x,y, or a JSON geometry")
            }
            let values = parts.compactMap { $0 }
            found =
                values.count == 2
                ? .point(x: values[0], y: values[1])
                : .envelope(
                    xmin: min(values[0], values[2]), ymin: min(values[1], values[3]), xmax: max(values[0], values[2]), ymax: max(values[1], values[3])
                )
        }
        if let type, found.geometryType != type {
            let name = { (kind: GeometryType) in kind.rawValue.dropFirst("esriGeometry".count).lowercased() }
            throw ServiceError.invalidParameter(
                "geometryType", reason: "geometryType \(type.rawValue) does not match the geometry, a \(name(found.geometryType))")
        }
        return (found, embedded)
    }

    private static func spatialReference(_ inSR: String?, embedded: Int64?) throws(ServiceError) -> QuerySpatialReference {
        if let inSR {
            guard let parsed = QuerySpatialReference(parameter: inSR) else {
                throw ServiceError.invalidParameter("inSR", reason: "supported: 4326, 102100 (3857)")
            }
            return parsed
        }
        guard let embedded else { return .wgs84 }
        guard let parsed = QuerySpatialReference(wkid: embedded) else {
            throw ServiceError.invalidParameter("geometry", reason: "spatial reference \(embedded) is not supported (use 4326 or 102100)")
        }
        return parsed
    }

    /// `geometry` with each polygon ring that does not end at its first vertex closed.
    private static func closingRings(_ geometry: Geometry) -> Geometry {
        guard case .polygon(let rings, let reference) = geometry else { return geometry }
        let closed = rings.map { ring in
            guard let first = ring.first, let last = ring.last, first.prefix(2) != last.prefix(2) else { return ring }
            return ring + [first]
        }
        return .polygon(rings: closed, spatialReference: reference)
    }
}
