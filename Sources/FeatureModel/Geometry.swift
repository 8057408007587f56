/// A spatial reference by well-known ID.
public struct SpatialReference: Sendable, Hashable, Codable {
    /// The well-known ID, such as 4326 or 102100.
    public var wkid: Int?
    /// The current well-known ID of the same system, such as 3857 for 102100.
    public var latestWkid: Int?

    /// A spatial reference by well-known ID.
    public init(wkid: Int?, latestWkid: Int? = nil) {
        self.wkid = wkid
        self.latestWkid = latestWkid
    }

    /// WGS 84 geographic coordinates.
    public static let wgs84 = SpatialReference(wkid: 4326, latestWkid: 4326)
    /// Web Mercator.
    public static let webMercator = SpatialReference(wkid: 102100, latestWkid: 3857)
}

/// The ArcGIS geometry type names used in layer metadata and query responses.
public enum GeometryType: String, Sendable, Hashable, Codable, CaseIterable {
    case point = "esriGeometryPoint"
    case multipoint = "esriGeometryMultipoint"
    case polyline = "esriGeometryPolyline"
    case polygon = "esriGeometryPolygon"
    case envelope = "esriGeometryEnvelope"
}

/// An ArcGIS JSON geometry.
///
/// The kind is recognised from the keys present: `x`/`y` point, `points` multipoint, `paths` polyline,
/// `rings` polygon, `xmin…` envelope.
public enum Geometry: Sendable, Hashable, Codable {
    case point(x: Double, y: Double, z: Double? = nil, spatialReference: SpatialReference? = nil)
    case multipoint(points: [[Double]], spatialReference: SpatialReference? = nil)
    case polyline(paths: [[[Double]]], spatialReference: SpatialReference? = nil)
    case polygon(rings: [[[Double]]], spatialReference: SpatialReference? = nil)
    case envelope(xmin: Double, ymin: Double, xmax: Double, ymax: Double, spatialReference: SpatialReference? = nil)

    private enum CodingKeys: String, CodingKey {
        case x, y, z, points, paths, rings, xmin, ymin, xmax, ymax, spatialReference
    }

    /// Decodes a geometry from its JSON object, by its keys (`x`/`y`, `points`, `paths` or `rings`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let sr = try c.decodeIfPresent(SpatialReference.self, forKey: .spatialReference)
        if c.contains(.x) {
            self = .point(
                x: try c.decode(Double.self, forKey: .x), y: try c.decode(Double.self, forKey: .y),
                z: try c.decodeIfPresent(Double.self, forKey: .z), spatialReference: sr)
        } else if c.contains(.points) {
            self = .multipoint(points: try c.decode([[Double]].self, forKey: .points), spatialReference: sr)
        } else if c.contains(.paths) {
            self = .polyline(paths: try c.decode([[[Double]]].self, forKey: .paths), spatialReference: sr)
        } else if c.contains(.rings) {
            self = .polygon(rings: try c.decode([[[Double]]].self, forKey: .rings), spatialReference: sr)
        } else if c.contains(.xmin) {
            self = .envelope(
                xmin: try c.decode(Double.self, forKey: .xmin), ymin: try c.decode(Double.self, forKey: .ymin),
                xmax: try c.decode(Double.self, forKey: .xmax), ymax: try c.decode(Double.self, forKey: .ymax),
                spatialReference: sr)
        } else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "geometry has none of x/y, points, paths, rings, xmin…"))
        }
    }

    /// Encodes the geometry as its ArcGIS JSON object.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .point(let x, let y, let z, let sr):
            try c.encode(x, forKey: .x)
            try c.encode(y, forKey: .y)
            try c.encodeIfPresent(z, forKey: .z)
            try c.encodeIfPresent(sr, forKey: .spatialReference)
        case .multipoint(let points, let sr):
            try c.encode(points, forKey: .points)
            try c.encodeIfPresent(sr, forKey: .spatialReference)
        case .polyline(let paths, let sr):
            try c.encode(paths, forKey: .paths)
            try c.encodeIfPresent(sr, forKey: .spatialReference)
        case .polygon(let rings, let sr):
            try c.encode(rings, forKey: .rings)
            try c.encodeIfPresent(sr, forKey: .spatialReference)
        case .envelope(let xmin, let ymin, let xmax, let ymax, let sr):
            try c.encode(xmin, forKey: .xmin)
            try c.encode(ymin, forKey: .ymin)
            try c.encode(xmax, forKey: .xmax)
            try c.encode(ymax, forKey: .ymax)
            try c.encodeIfPresent(sr, forKey: .spatialReference)
        }
    }

    /// The geometry type of this value.
    public var geometryType: GeometryType {
        switch self {
        case .point: return .point
        case .multipoint: return .multipoint
        case .polyline: return .polyline
        case .polygon: return .polygon
        case .envelope: return .envelope
        }
    }
}

/// An extent with its spatial reference, as in layer and service metadata.
public struct Extent: Sendable, Hashable, Codable {
    /// The smallest x coordinate.
    public var xmin: Double
    /// The smallest y coordinate.
    public var ymin: Double
    /// The largest x coordinate.
    public var xmax: Double
    /// The largest y coordinate.
    public var ymax: Double
    /// The coordinate system of the coordinates; nil when the context gives it.
    public var spatialReference: SpatialReference?

    /// An extent from its corners.
    public init(xmin: Double, ymin: Double, xmax: Double, ymax: Double, spatialReference: SpatialReference? = nil) {
        self.xmin = xmin
        self.ymin = ymin
        self.xmax = xmax
        self.ymax = ymax
        self.spatialReference = spatialReference
    }
}
