import FeatureModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks a submitted geometry and converts it to what the layer stores.
///
/// Point layers store WGS 84 `x`/`y`: a point in WGS 84 (`wkid` 4326 or none) is kept, one in Web Mercator
/// (102100/3857) is unprojected, `x: null` or `"NaN"` is an empty geometry. Other layers store the geometry's JSON
/// text. A geometry of the wrong kind or another spatial reference fails with 1015.
enum GeometryCoercion {
    /// The stored columns of a geometry: point coordinates, JSON text, or nothing (empty geometry).
    enum Stored: Sendable, Hashable {
        case empty
        case point(x: Double, y: Double)
        case json(String)
    }

    /// The stored form of `geometry` for a layer storing `storage`.
    static func coerce(_ geometry: JSONValue, storage: LayerSchema.GeometryStorage) -> Result<Stored, EditFailure> {
        guard case .object(let members) = geometry else {
            if geometry.isNull { return .success(.empty) }
            return failure("expected a geometry object")
        }
        switch storage {
        case .none:
            return .success(.empty)
        case .json:
            guard let text = try? WireJSON.string(geometry) else { return failure("geometry is not encodable") }
            return .success(.json(text))
        case .point:
            guard let xValue = members["x"] else {
                if members["points"] != nil || members["paths"] != nil || members["rings"] != nil || members["xmin"] != nil {
                    return failure("expected a point")
                }
                return .success(.empty)
            }
            if xValue.isNull || xValue.stringValue == "NaN" { return .success(.empty) }
            guard let x = xValue.doubleValue, let y = members["y"]?.doubleValue, x.isFinite, y.isFinite else {
                return failure("point x and y must be numbers")
            }
            guard let wkid = members["spatialReference"].flatMap(QuerySpatialReference.wkid(in:)) else {
                return .success(.point(x: x, y: y))
            }
            switch QuerySpatialReference(wkid: wkid) {
            case .wgs84?:
                return .success(.point(x: x, y: y))
            case .webMercator?:
                let (longitude, latitude) = QuerySpatialReference.unproject(x: x, y: y)
                return .success(.point(x: longitude, y: latitude))
            case nil:
                return failure("spatial reference \(wkid) is not supported (use 4326 or 102100)")
            }
        }
    }

    private static func failure(_ reason: String) -> Result<Stored, EditFailure> {
        .failure(EditFailure(code: EditErrorCode.geometryNotSet, description: "Geometry could not be set: \(reason)."))
    }
}
