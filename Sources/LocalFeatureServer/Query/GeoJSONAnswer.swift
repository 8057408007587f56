import FeatureModel
import GEOSSupport

/// The `f=geojson` answer to a layer query: an RFC 7946 FeatureCollection in WGS 84.
///
/// Each feature has its object ID as `id`, its attributes as `properties` and its geometry as a Point, MultiPoint,
/// LineString (one path) or MultiLineString, Polygon (one outer ring) or MultiPolygon, or null. Polygons are regrouped
/// by GEOS (each hole under the outer ring that holds it) and wound as RFC 7946 §3.1.6 asks: outer rings
/// counter-clockwise, holes clockwise (ArcGIS JSON winds them the other way). More rows than the page holds is stated as
/// ArcGIS does, `"properties":{"exceededTransferLimit":true}` on the collection. Counts, object IDs and extents have no
/// GeoJSON form and are answered as JSON.
struct GeoJSONFeatureCollection: Encodable {
    var features: [Feature]
    var objectIdField: String
    var exceededTransferLimit: Bool

    private enum Keys: String, CodingKey { case type, features, properties, id, geometry, coordinates, exceededTransferLimit }

    /// The collection of `features` (geometries in WGS 84), polygons regrouped on one GEOS context.
    init(features: [Feature], objectIdField: String, exceededTransferLimit: Bool) {
        self.features = features
        self.objectIdField = objectIdField
        self.exceededTransferLimit = exceededTransferLimit
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode("FeatureCollection", forKey: .type)
        if exceededTransferLimit {
            var properties = container.nestedContainer(keyedBy: Keys.self, forKey: .properties)
            try properties.encode(true, forKey: .exceededTransferLimit)
        }
        let context = try? GEOSContext()
        var list = container.nestedUnkeyedContainer(forKey: .features)
        for feature in features {
            var item = list.nestedContainer(keyedBy: Keys.self)
            try item.encode("Feature", forKey: .type)
            if let id = feature.attributes[objectIdField], id != .null { try item.encode(id, forKey: .id) }
            try item.encode(feature.attributes, forKey: .properties)
            if let geometry = feature.geometry, let shape = Self.shape(geometry, context: context) {
                var body = item.nestedContainer(keyedBy: Keys.self, forKey: .geometry)
                try body.encode(shape.type, forKey: .type)
                try shape.encodeCoordinates(into: &body, forKey: .coordinates)
            } else {
                try item.encodeNil(forKey: .geometry)
            }
        }
    }

    /// A GeoJSON geometry: its type and coordinates, nested as deep as the type needs.
    enum Shape {
        case point([Double])
        case line(type: String, [[Double]])
        case lines(type: String, [[[Double]]])
        case polygons([[[[Double]]]])

        var type: String {
            switch self {
            case .point: return "Point"
            case .line(let type, _), .lines(let type, _): return type
            case .polygons(let polygons): return polygons.count == 1 ? "Polygon" : "MultiPolygon"
            }
        }

        func encodeCoordinates<K: CodingKey>(into container: inout KeyedEncodingContainer<K>, forKey key: K) throws {
            switch self {
            case .point(let point): try container.encode(point, forKey: key)
            case .line(_, let points): try container.encode(points, forKey: key)
            case .lines(_, let parts): try container.encode(parts, forKey: key)
            case .polygons(let polygons):
                if polygons.count == 1 { try container.encode(polygons[0], forKey: key) } else { try container.encode(polygons, forKey: key) }
            }
        }
    }

    /// The GeoJSON form of an ArcGIS geometry; nil for an empty one.
    static func shape(_ geometry: Geometry, context: GEOSContext?) -> Shape? {
        switch geometry {
        case .point(let x, let y, _, _):
            return x.isFinite && y.isFinite ? .point([x, y]) : nil
        case .multipoint(let points, _):
            return points.isEmpty ? nil : .line(type: "MultiPoint", points)
        case .polyline(let paths, _):
            guard !paths.isEmpty else { return nil }
            return paths.count == 1 ? .line(type: "LineString", paths[0]) : .lines(type: "MultiLineString", paths)
        case .polygon(let rings, _):
            guard !rings.isEmpty else { return nil }
            // GEOS' normal form winds outer rings clockwise; RFC 7946 wants them counter-clockwise, holes clockwise.
            if let context, let grouped = try? context.geometry(geometry).polygons(), !grouped.isEmpty {
                return .polygons(grouped.map { $0.map { $0.reversed() } })
            }
            // Rings GEOS cannot group (a hole outside every outer ring, written before edits were checked): one
            // polygon per ring, so nothing is lost.
            return .polygons(rings.map { [$0.reversed()] })
        case .envelope(let xmin, let ymin, let xmax, let ymax, _):
            return .polygons([[[[xmin, ymin], [xmax, ymin], [xmax, ymax], [xmin, ymax], [xmin, ymin]]]])
        }
    }
}
