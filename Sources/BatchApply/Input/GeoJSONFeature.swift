import FeatureModel

/// Turns one GeoJSON Feature object into an edit: `properties` become attributes, the geometry becomes Esri JSON.
///
/// Pure: no I/O.
enum GeoJSONFeature {
    /// The kind and feature of a GeoJSON Feature.
    /// - Parameters:
    ///   - value: the parsed Feature object.
    ///   - spatialReference: the collection's coordinate system (WGS 84 unless its `crs` says otherwise); a
    ///     feature's own legacy `crs` member wins.
    ///   - kindField: the property naming the edit kind (removed from the attributes); nil for adds.
    /// - Returns: the edit kind and the feature.
    /// - Throws: ``GeometryProblem`` naming what is wrong: not a Feature, a nested property, a bad geometry.
    package static func decode(
        _ value: JSONValue, spatialReference: SpatialReference = SpatialReference(wkid: 4326), kindField: String? = nil
    ) throws(GeometryProblem) -> (kind: InputEdit.Kind, feature: Feature) {
        guard case .object(let object) = value else { throw GeometryProblem("the record is not a JSON object") }
        guard object["type"]?.stringValue == "Feature" else {
            let type = object["type"]?.description ?? "missing"
            throw GeometryProblem("the record's \"type\" is \(type); expected \"Feature\"")
        }
        var attributes: [String: JSONValue] = [:]
        switch object["properties"] {
        case nil, .null?: break
        case .object(let properties)?:
            for (name, property) in properties {
                switch property {
                case .object, .array:
                    throw GeometryProblem(
                        "property '\(name)' holds a nested \(property.isObject ? "object" : "array"); attributes must be plain values")
                default: continue
                }
            }
            attributes = properties
        case let other?: throw GeometryProblem("\"properties\" is \(other); expected an object or null")
        }
        let kind: InputEdit.Kind
        do throws(RecordError) { kind = try EditKindField.take(from: &attributes, field: kindField) } catch { throw GeometryProblem(error.reason) }
        var reference = spatialReference
        if let crs = object["crs"], !crs.isNull { reference = SpatialReference(wkid: try GeoJSONGeometry.wkid(ofCRS: crs)) }
        let geometry: Geometry?
        do {
            geometry = try GeoJSONGeometry.esriGeometry(object["geometry"] ?? .null, spatialReference: reference)
        } catch {
            throw GeometryProblem("geometry: \(error.reason)")
        }
        return (kind, Feature(attributes: attributes, geometry: geometry))
    }
}

extension JSONValue {
    var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}
