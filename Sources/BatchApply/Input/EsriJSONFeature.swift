package import FeatureModel
import Foundation

/// Reads Esri JSON features, geometries and delete keys from parsed JSON.
///
/// Pure: no I/O.
package enum EsriJSONFeature {
    /// The attribute a delete's object ID is put under; the applier maps it to the layer's object-ID field.
    package static let objectIdKey = "OBJECTID"
    /// The attribute a delete's GlobalID is put under; the applier maps it to the layer's GlobalID field.
    package static let globalIdKey = "GlobalID"

    /// The feature in an Esri JSON `{"attributes": {…}, "geometry": {…}}` object.
    /// - Parameters:
    ///   - spatialReference: given to a geometry that has none (the feature set's).
    ///   - geometryType: the feature set's `geometryType`; a geometry of another type is a problem.
    /// - Throws: ``GeometryProblem`` when the record is not such an object or its geometry is unusable.
    package static func feature(
        _ value: JSONValue, spatialReference: SpatialReference? = nil, geometryType: GeometryType? = nil
    ) throws(GeometryProblem) -> Feature {
        guard case .object(let object) = value else { throw GeometryProblem("the record is not a JSON object") }
        var attributes: [String: JSONValue] = [:]
        switch object["attributes"] {
        case .object(let members)?: attributes = members
        case nil, .null?: break
        case let other?: throw GeometryProblem("\"attributes\" is \(other); expected an object")
        }
        if attributes.isEmpty && object["geometry"] == nil {
            throw GeometryProblem("the record has neither \"attributes\" nor \"geometry\"")
        }
        let geometry = try self.geometry(object["geometry"] ?? .null, spatialReference: spatialReference)
        if let geometryType, let geometry, geometry.geometryType != geometryType {
            throw GeometryProblem("the geometry is \(geometry.geometryType.rawValue) but the feature set's geometryType is \(geometryType.rawValue)")
        }
        return Feature(attributes: attributes, geometry: geometry)
    }

    /// The key of one element of a `deletes` array: an object ID (number, or a string of digits) under
    /// ``objectIdKey``, or a GlobalID (braces optional) under ``globalIdKey``, normalised.
    /// - Throws: ``GeometryProblem`` for anything else.
    package static func deleteKey(_ value: JSONValue) throws(GeometryProblem) -> Feature {
        if let id = value.intValue { return Feature(attributes: [objectIdKey: .int(id)]) }
        if let text = value.stringValue {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let id = Int64(trimmed) { return Feature(attributes: [objectIdKey: .int(id)]) }
            if let guid = GlobalID.normalized(String(trimmed)) { return Feature(attributes: [globalIdKey: .string(guid)]) }
        }
        throw GeometryProblem("a delete is \(value); expected an object ID or a GlobalID")
    }

    /// The Esri JSON geometry in `value` (nil for null or `{}`), with `spatialReference` when it names none.
    ///
    /// With `hasM` the measure is dropped; with `hasZ` (or three coordinates and no `hasM`) z is kept.
    /// - Throws: ``GeometryProblem`` for curves, envelopes, or coordinates that are not numbers.
    package static func geometry(_ value: JSONValue, spatialReference: SpatialReference?) throws(GeometryProblem) -> Geometry? {
        if value.isNull { return nil }
        guard case .object(let object) = value else { throw GeometryProblem("\"geometry\" is not an object") }
        if object.isEmpty { return nil }
        var reference = spatialReference
        if case .object(let sr)? = object["spatialReference"], sr["wkid"]?.intValue != nil || sr["latestWkid"]?.intValue != nil {
            reference = SpatialReference(wkid: sr["wkid"]?.intValue.map(Int.init), latestWkid: sr["latestWkid"]?.intValue.map(Int.init))
        }
        let hasM = object["hasM"]?.boolValue == true
        let hasZ = object["hasZ"]?.boolValue == true
        // Coordinates kept per position: x, y, and z unless the third one is a measure.
        let width = hasM && !hasZ ? 2 : 3
        if let x = object["x"] {
            guard let xValue = x.doubleValue else {
                if x.isNull || x.stringValue == "NaN" { return nil }
                throw GeometryProblem("point x is \(x), not a number")
            }
            guard let y = object["y"]?.doubleValue else { throw GeometryProblem("point has no numeric y") }
            let z = object["z"]?.doubleValue
            return .point(x: xValue, y: y, z: z, spatialReference: reference)
        }
        if let points = object["points"] {
            return .multipoint(points: try positions(points, "points", width: width), spatialReference: reference)
        }
        if let paths = object["paths"] {
            return .polyline(paths: try parts(paths, "paths", width: width), spatialReference: reference)
        }
        if let rings = object["rings"] {
            return .polygon(rings: try parts(rings, "rings", width: width), spatialReference: reference)
        }
        if object["curvePaths"] != nil || object["curveRings"] != nil {
            throw GeometryProblem("curved geometries (curvePaths, curveRings) are not supported")
        }
        if object["xmin"] != nil { throw GeometryProblem("an envelope is not a feature geometry") }
        throw GeometryProblem("the geometry has none of x/y, points, paths or rings")
    }

    private static func positions(_ value: JSONValue, _ name: String, width: Int) throws(GeometryProblem) -> [[Double]] {
        guard case .array(let items) = value else { throw GeometryProblem("\"\(name)\" is not an array") }
        var result: [[Double]] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .array(let numbers) = item, numbers.count >= 2 else {
                throw GeometryProblem("position \(index + 1) of \"\(name)\" is not an array of at least 2 numbers")
            }
            var position: [Double] = []
            for number in numbers.prefix(width) {
                guard let coordinate = number.doubleValue else {
                    throw GeometryProblem("position \(index + 1) of \"\(name)\" has \(number), not a number")
                }
                position.append(coordinate)
            }
            result.append(position)
        }
        return result
    }

    private static func parts(_ value: JSONValue, _ name: String, width: Int) throws(GeometryProblem) -> [[[Double]]] {
        guard case .array(let items) = value else { throw GeometryProblem("\"\(name)\" is not an array") }
        var result: [[[Double]]] = []
        for (index, item) in items.enumerated() { result.append(try positions(item, "\(name)[\(index)]", width: width)) }
        return result
    }
}
