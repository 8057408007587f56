import FeatureModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks a submitted geometry and converts it to what the layer stores.
///
/// Layers store WGS 84. Point layers keep `x`/`y` columns; other layers the geometry's JSON text. A geometry in
/// WGS 84 (`wkid` 4326 or none) is kept, one in Web Mercator (102100/3857) is unprojected; `x: null` or `"NaN"` is an
/// empty point. Every coordinate must be a finite number inside the geographic range (longitude −180…180, latitude
/// −90…90), as a WGS 84 feature class's domain requires, so that no stored row can break a later query's
/// projection. A geometry of the wrong kind, another spatial reference, or a coordinate out of range fails with
/// 1015 ("Geometry could not be set"), the edit's own error; the other edits of the batch are untouched.
enum GeometryCoercion {
    /// The stored columns of a geometry: point coordinates, JSON text, or nothing (empty geometry).
    enum Stored: Sendable, Hashable {
        case empty
        case point(x: Double, y: Double)
        /// JSON text in WGS 84, and its bounds for the spatial index (nil for a geometry without vertices).
        case json(String, ShapeBounds?)
    }

    /// Whether (`x`, `y`) is a finite WGS 84 coordinate: longitude −180…180, latitude −90…90.
    static func isGeographic(x: Double, y: Double) -> Bool {
        x.isFinite && y.isFinite && abs(x) <= 180 && abs(y) <= 90
    }

    /// The stored form of `geometry` for a layer storing `storage` with geometry type `type`.
    static func coerce(_ geometry: JSONValue, storage: LayerSchema.GeometryStorage, type: GeometryType? = nil) -> Result<Stored, EditFailure> {
        guard case .object(let members) = geometry else {
            if geometry.isNull { return .success(.empty) }
            return failure("expected a geometry object")
        }
        switch storage {
        case .none:
            return .success(.empty)
        case .json:
            return coerceJSON(geometry, members: members, type: type)
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
            switch reference(members) {
            case .failure(let failure):
                return .failure(failure)
            case .success(.wgs84):
                guard isGeographic(x: x, y: y) else { return outOfRange(x, y) }
                return .success(.point(x: x, y: y))
            case .success(.webMercator):
                let (longitude, latitude) = QuerySpatialReference.unproject(x: x, y: y)
                guard isGeographic(x: longitude, y: latitude) else { return outOfRange(x, y) }
                return .success(.point(x: longitude, y: latitude))
            }
        }
    }

    /// A multipoint, polyline, polygon or envelope, checked coordinate by coordinate and stored as WGS 84 JSON.
    private static func coerceJSON(_ geometry: JSONValue, members: [String: JSONValue], type: GeometryType?) -> Result<Stored, EditFailure> {
        // JSONWriter rather than JSONEncoder: a polygon of thousands of vertices is written many times faster.
        var writer = JSONWriter(capacity: 1_024)
        writer.write(geometry)
        let text = writer.string
        guard let decoded = try? WireJSON.decode(Geometry.self, from: text) else {
            return failure("expected x/y, points, paths, rings or xmin… with numeric coordinates")
        }
        if let type, decoded.geometryType != type {
            return failure(
                "expected a \(type.rawValue.dropFirst("esriGeometry".count).lowercased()), got a \(decoded.geometryType.rawValue.dropFirst("esriGeometry".count).lowercased())"
            )
        }
        let reference: QuerySpatialReference
        switch Self.reference(members) {
        case .failure(let failure): return .failure(failure)
        case .success(let found): reference = found
        }
        var bad: (Double, Double)?
        var bounds: ShapeBounds?
        let stored = decoded.mappingCoordinates { x, y in
            let (outX, outY) = reference == .webMercator ? QuerySpatialReference.unproject(x: x, y: y) : (x, y)
            if bad == nil && !isGeographic(x: outX, y: outY) { bad = (x, y) }
            ShapeBounds.include(outX, outY, in: &bounds)
            return (outX, outY)
        }
        if let (x, y) = bad { return outOfRange(x, y) }
        if reference == .wgs84 { return .success(.json(text, bounds)) }
        var normalized = JSONWriter(capacity: text.utf8.count)
        normalized.write(stored)
        return .success(.json(normalized.string, bounds))
    }

    /// The geometry's spatial reference: WGS 84 when it names none.
    private static func reference(_ members: [String: JSONValue]) -> Result<QuerySpatialReference, EditFailure> {
        guard let wkid = members["spatialReference"].flatMap(QuerySpatialReference.wkid(in:)) else { return .success(.wgs84) }
        guard let reference = QuerySpatialReference(wkid: wkid) else {
            return .failure(
                EditFailure(
                    code: EditErrorCode.geometryNotSet,
                    description: "Geometry could not be set: spatial reference \(wkid) is not supported (use 4326 or 102100)."))
        }
        return .success(reference)
    }

    private static func outOfRange(_ x: Double, _ y: Double) -> Result<Stored, EditFailure> {
        failure("coordinate (\(x), \(y)) is outside the layer's spatial reference (WGS 84: longitude -180 to 180, latitude -90 to 90)")
    }

    private static func failure(_ reason: String) -> Result<Stored, EditFailure> {
        .failure(EditFailure(code: EditErrorCode.geometryNotSet, description: "Geometry could not be set: \(reason)."))
    }
}

extension Geometry {
    /// Whether every x/y pair satisfies `predicate` (read only: nothing is built).
    func allCoordinates(_ predicate: (Double, Double) -> Bool) -> Bool {
        func pairs(_ points: [[Double]]) -> Bool { points.allSatisfy { $0.count < 2 || predicate($0[0], $0[1]) } }
        switch self {
        case .point(let x, let y, _, _): return predicate(x, y)
        case .multipoint(let points, _): return pairs(points)
        case .polyline(let paths, _): return paths.allSatisfy(pairs)
        case .polygon(let rings, _): return rings.allSatisfy(pairs)
        case .envelope(let xmin, let ymin, let xmax, let ymax, _): return predicate(xmin, ymin) && predicate(xmax, ymax)
        }
    }

    /// This geometry with each x/y pair replaced by `transform`'s answer (z and m values kept), without a spatial
    /// reference.
    func mappingCoordinates(_ transform: (Double, Double) -> (Double, Double)) -> Geometry {
        func pair(_ values: [Double]) -> [Double] {
            guard values.count >= 2 else { return values }
            let (x, y) = transform(values[0], values[1])
            return [x, y] + values.dropFirst(2)
        }
        switch self {
        case .point(let x, let y, let z, _):
            let (outX, outY) = transform(x, y)
            return .point(x: outX, y: outY, z: z)
        case .multipoint(let points, _):
            return .multipoint(points: points.map(pair))
        case .polyline(let paths, _):
            return .polyline(paths: paths.map { $0.map(pair) })
        case .polygon(let rings, _):
            return .polygon(rings: rings.map { $0.map(pair) })
        case .envelope(let xmin, let ymin, let xmax, let ymax, _):
            let (lowX, lowY) = transform(xmin, ymin)
            let (highX, highY) = transform(xmax, ymax)
            return .envelope(xmin: lowX, ymin: lowY, xmax: highX, ymax: highY)
        }
    }
}
