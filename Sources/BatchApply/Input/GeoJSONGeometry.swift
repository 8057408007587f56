package import FeatureModel

/// Reads GeoJSON (RFC 7946) geometries and the legacy `crs` member.
///
/// Pure: no I/O.
package enum GeoJSONGeometry {
    /// The simple-features geometry of a GeoJSON geometry object; `.empty` for JSON `null`.
    ///
    /// A third coordinate (z) is kept; further ones are dropped.
    /// - Throws: ``GeometryProblem`` for a GeometryCollection, an unknown type, or coordinates that are not
    ///   arrays of numbers nested as the type requires.
    static func simpleGeometry(_ value: JSONValue) throws(GeometryProblem) -> SimpleGeometry {
        if value.isNull { return .empty }
        guard case .object(let object) = value else { throw GeometryProblem("geometry is not an object") }
        guard let type = object["type"]?.stringValue else { throw GeometryProblem("geometry has no \"type\"") }
        if type == "GeometryCollection" {
            throw GeometryProblem("GeometryCollection is not supported; ArcGIS layers hold one geometry type")
        }
        guard let coordinates = object["coordinates"] else { throw GeometryProblem("\(type) has no \"coordinates\"") }
        switch type {
        case "Point": return .point(try position(coordinates, "Point coordinates"))
        case "MultiPoint": return .multiPoint(try positions(coordinates, "MultiPoint coordinates"))
        case "LineString": return .lineString(try positions(coordinates, "LineString coordinates"))
        case "MultiLineString": return .multiLineString(try lists(coordinates, "MultiLineString coordinates"))
        case "Polygon": return .polygon(try lists(coordinates, "Polygon coordinates"))
        case "MultiPolygon":
            guard case .array(let polygons) = coordinates else { throw GeometryProblem("MultiPolygon coordinates is not an array") }
            var result: [[[[Double]]]] = []
            for (index, polygon) in polygons.enumerated() {
                result.append(try lists(polygon, "polygon \(index + 1) of MultiPolygon"))
            }
            return .multiPolygon(result)
        default:
            throw GeometryProblem("unknown geometry type \"\(type)\"")
        }
    }

    /// The Esri JSON geometry of a GeoJSON geometry object (nil for `null`), in `spatialReference`.
    /// - Throws: ``GeometryProblem`` as ``simpleGeometry(_:)`` and ``SimpleGeometry/esriGeometry(spatialReference:)``.
    package static func esriGeometry(_ value: JSONValue, spatialReference: SpatialReference?) throws(GeometryProblem) -> Geometry? {
        try simpleGeometry(value).esriGeometry(spatialReference: spatialReference)
    }

    /// The EPSG code a legacy GeoJSON `crs` member names (`urn:ogc:def:crs:EPSG::3857`, `EPSG:3857`,
    /// `{"type":"EPSG","properties":{"code":3857}}`); 4326 for CRS84.
    /// - Throws: ``GeometryProblem`` when the member names no coordinate system this reader knows.
    package static func wkid(ofCRS value: JSONValue) throws(GeometryProblem) -> Int {
        guard case .object(let crs) = value, case .object(let properties)? = crs["properties"] else {
            throw GeometryProblem("\"crs\" is not an object with \"properties\"")
        }
        if let code = properties["code"]?.intValue { return Int(code) }
        guard let name = properties["name"]?.stringValue else { throw GeometryProblem("\"crs\" has no properties.name") }
        if let wkid = wkid(ofName: name) { return wkid }
        throw GeometryProblem("\"crs\" names \"\(name)\"; expected urn:ogc:def:crs:EPSG::<code>, EPSG:<code> or CRS84")
    }

    /// The EPSG code in a coordinate-system name, or nil when the name is not one of the known forms.
    static func wkid(ofName name: String) -> Int? {
        let upper = name.uppercased()
        if upper.hasSuffix("CRS84") || upper.hasSuffix("CRS:84") { return 4326 }
        // urn:ogc:def:crs:EPSG::3857, urn:ogc:def:crs:EPSG:6.6:3857, EPSG:3857, http://www.opengis.net/def/crs/EPSG/0/3857
        guard upper.contains("EPSG") else { return nil }
        let digits = upper.reversed().prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let code = Int(String(digits.reversed())) else { return nil }
        return code
    }

    private static func number(_ value: JSONValue, _ name: String) throws(GeometryProblem) -> Double {
        guard let number = value.doubleValue else { throw GeometryProblem("\(name) has \(value), which is not a number") }
        return number
    }

    static func position(_ value: JSONValue, _ name: String) throws(GeometryProblem) -> [Double] {
        guard case .array(let numbers) = value else { throw GeometryProblem("\(name) is not an array of numbers") }
        guard numbers.count >= 2 else {
            throw GeometryProblem("\(name) has \(numbers.count) coordinate\(numbers.count == 1 ? "" : "s"); a position needs x and y")
        }
        var result: [Double] = []
        result.reserveCapacity(3)
        for number in numbers.prefix(3) { result.append(try self.number(number, name)) }
        return result
    }

    static func positions(_ value: JSONValue, _ name: String) throws(GeometryProblem) -> [[Double]] {
        guard case .array(let items) = value else { throw GeometryProblem("\(name) is not an array of positions") }
        var result: [[Double]] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() { result.append(try position(item, "position \(index + 1) of \(name)")) }
        return result
    }

    static func lists(_ value: JSONValue, _ name: String) throws(GeometryProblem) -> [[[Double]]] {
        guard case .array(let items) = value else { throw GeometryProblem("\(name) is not an array of position lists") }
        var result: [[[Double]]] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() { result.append(try positions(item, "part \(index + 1) of \(name)")) }
        return result
    }
}
