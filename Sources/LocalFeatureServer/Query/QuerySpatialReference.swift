import FeatureModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The spatial references a query can take input in (`inSR`, a geometry's `spatialReference`) and answer in
/// (`outSR`): WGS 84 (4326), in which point layers store their coordinates, and Web Mercator (102100, 3857 and
/// the retired 102113 and 900913).
///
/// Reprojection between them is the spherical Web Mercator formula ArcGIS uses (EPSG:3857), exact up to
/// floating-point rounding; latitudes beyond ±85.0511287798° are clamped to the projection's edge.
enum QuerySpatialReference: Sendable, Hashable {
    case wgs84
    case webMercator

    /// Earth radius of the Web Mercator sphere, metres.
    static let radius = 6_378_137.0
    /// The latitude at which Web Mercator's square world ends.
    static let maximumLatitude = 85.051_128_779_806_59

    /// The reference with well-known ID `wkid`, or nil when this server does not support it.
    init?(wkid: Int64) {
        switch wkid {
        case 4326: self = .wgs84
        case 102100, 3857, 102113, 900913: self = .webMercator
        default: return nil
        }
    }

    /// `4326`, `102100`, or a JSON spatial reference such as `{"wkid":102100,"latestWkid":3857}`.
    /// - Returns: nil when the text is none of these or names an unsupported reference.
    init?(parameter text: String) {
        let trimmed = text.trimmed
        if let wkid = Int64(trimmed) {
            self.init(wkid: wkid)
            return
        }
        guard let value = try? JSONReader.parse(trimmed), let wkid = Self.wkid(in: value) else { return nil }
        self.init(wkid: wkid)
    }

    /// The `latestWkid` or `wkid` of a JSON spatial-reference object (nil when absent).
    static func wkid(in value: JSONValue) -> Int64? {
        guard case .object(let members) = value else { return nil }
        return members["latestWkid"]?.intValue ?? members["wkid"]?.intValue
    }

    /// How answers state this reference.
    var wire: SpatialReference {
        switch self {
        case .wgs84: return .wgs84
        case .webMercator: return .webMercator
        }
    }

    /// WGS 84 degrees to Web Mercator metres.
    static func project(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
        let clamped = min(max(latitude, -maximumLatitude), maximumLatitude)
        let x = radius * longitude * Double.pi / 180
        let y = radius * log(tan(Double.pi / 4 + clamped * Double.pi / 360))
        return (x, y)
    }

    /// Web Mercator metres to WGS 84 degrees.
    static func unproject(x: Double, y: Double) -> (longitude: Double, latitude: Double) {
        let longitude = x / radius * 180 / Double.pi
        let latitude = (2 * atan(exp(y / radius)) - Double.pi / 2) * 180 / Double.pi
        return (longitude, latitude)
    }
}

/// How answer geometries are written: the output spatial reference, `maxAllowableOffset`, `geometryPrecision`
/// (decimal places) and `quantizationParameters`.
struct GeometryOutput: Sendable, Hashable {
    var spatialReference: QuerySpatialReference = .wgs84
    /// Decimal places to round coordinates to; nil keeps full precision. Not used when quantized.
    var precision: Int?
    /// `maxAllowableOffset`, in the output spatial reference's units; nil (or 0) answers shapes as stored.
    var maxAllowableOffset: Double?
    /// Integer coordinates on a grid (`quantizationParameters`); nil answers coordinates as numbers.
    var quantization: Quantization?

    /// How far lines and polygons may be simplified: `maxAllowableOffset`, else one cell in quantization's view
    /// mode; nil when they are answered as stored.
    var generalizationOffset: Double? {
        if let maxAllowableOffset { return maxAllowableOffset }
        guard let quantization, quantization.mode == .view else { return nil }
        return quantization.tolerance
    }

    /// A stored WGS 84 point, as answered.
    func point(x: Double, y: Double) -> Geometry {
        let (outX, outY) = coordinate(x, y)
        guard let quantization else { return .point(x: outX, y: outY) }
        let (i, j) = quantization.cell(outX, outY)
        return .point(x: i, y: j)
    }

    /// A stored geometry (coordinates in WGS 84), as answered: projected, then generalized (`generalizer`, for
    /// ``generalizationOffset``), then quantized or rounded.
    func transform(_ geometry: Geometry, generalizer: Generalizer? = nil) -> Geometry {
        guard generalizer != nil || quantization != nil else {
            if spatialReference == .wgs84 && precision == nil { return geometry }
            return geometry.mappingCoordinates(coordinate)
        }
        var projected = geometry
        if spatialReference == .webMercator { projected = geometry.mappingCoordinates { QuerySpatialReference.project(longitude: $0, latitude: $1) } }
        let generalized = generalizer?.generalize(projected) ?? projected
        if let quantization { return quantization.quantize(generalized) }
        guard let precision else { return generalized }
        return generalized.mappingCoordinates { (Self.round($0, precision), Self.round($1, precision)) }
    }

    /// A WGS 84 coordinate projected and rounded as asked (never quantized).
    func coordinate(_ x: Double, _ y: Double) -> (Double, Double) {
        var (outX, outY) = (x, y)
        if spatialReference == .webMercator { (outX, outY) = QuerySpatialReference.project(longitude: x, latitude: y) }
        guard let precision else { return (outX, outY) }
        return (Self.round(outX, precision), Self.round(outY, precision))
    }

    /// `value` rounded to `places` decimal places.
    static func round(_ value: Double, _ places: Int) -> Double {
        let scale = pow(10.0, Double(places))
        let scaled = (value * scale).rounded()
        return scaled.isFinite ? scaled / scale : value
    }
}
