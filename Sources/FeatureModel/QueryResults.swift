/// A query answer with features: `…/<id>/query?f=json`.
public struct FeatureSet: Sendable, Hashable, Codable {
    /// The layer's object ID field.
    public var objectIdFieldName: String?
    /// The layer's GlobalID field, when it has one.
    public var globalIdFieldName: String?
    /// The geometry type of the features, for a feature layer.
    public var geometryType: GeometryType?
    /// The coordinate system of the geometries.
    public var spatialReference: SpatialReference?
    /// Whether the geometries carry z values.
    public var hasZ: Bool?
    /// Whether the geometries carry m values.
    public var hasM: Bool?
    /// The fields of the returned attributes.
    public var fields: [Field]?
    /// The features, in the order the query asked for.
    public var features: [Feature]
    /// True when more rows match than this answer holds (paging or `maxRecordCount`).
    public var exceededTransferLimit: Bool?
    /// Present when the geometries are quantized (`quantizationParameters`): how their integers map back.
    public var transform: QuantizationTransform?

    package init(
        objectIdFieldName: String?, globalIdFieldName: String?, geometryType: GeometryType?,
        spatialReference: SpatialReference?, fields: [Field]?, features: [Feature], exceededTransferLimit: Bool?,
        transform: QuantizationTransform? = nil
    ) {
        self.objectIdFieldName = objectIdFieldName
        self.globalIdFieldName = globalIdFieldName
        self.geometryType = geometryType
        self.spatialReference = spatialReference
        self.fields = fields
        self.features = features
        self.exceededTransferLimit = exceededTransferLimit
        self.transform = transform
        if geometryType != nil {
            self.hasZ = false
            self.hasM = false
        }
    }

    private enum CodingKeys: String, CodingKey {
        case objectIdFieldName, globalIdFieldName, geometryType, spatialReference, hasZ, hasM, transform, fields, features,
            exceededTransferLimit
    }

    /// Decodes a query answer; missing `features` read as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        objectIdFieldName = try c.decodeIfPresent(String.self, forKey: .objectIdFieldName)
        globalIdFieldName = try c.decodeIfPresent(String.self, forKey: .globalIdFieldName)
        geometryType = try c.decodeIfPresent(GeometryType.self, forKey: .geometryType)
        spatialReference = try c.decodeIfPresent(SpatialReference.self, forKey: .spatialReference)
        hasZ = try c.decodeIfPresent(Bool.self, forKey: .hasZ)
        hasM = try c.decodeIfPresent(Bool.self, forKey: .hasM)
        fields = try c.decodeIfPresent([Field].self, forKey: .fields)
        features = try c.decodeIfPresent([Feature].self, forKey: .features) ?? []
        exceededTransferLimit = try c.decodeIfPresent(Bool.self, forKey: .exceededTransferLimit)
        transform = try c.decodeIfPresent(QuantizationTransform.self, forKey: .transform)
    }
}

/// The answer to `returnCountOnly=true`.
package struct CountResult: Sendable, Hashable, Codable {
    package var count: Int
    package init(count: Int) { self.count = count }
}

/// The answer to `returnIdsOnly=true`; never capped by `maxRecordCount`.
package struct ObjectIdsResult: Sendable, Hashable, Codable {
    package var objectIdFieldName: String
    package var objectIds: [Int64]

    package init(objectIdFieldName: String, objectIds: [Int64]) {
        self.objectIdFieldName = objectIdFieldName
        self.objectIds = objectIds
    }

    private enum CodingKeys: String, CodingKey { case objectIdFieldName, objectIds }

    /// Decodes an answer with `objectIds`; a `null` list (nothing matched) reads as empty.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        objectIdFieldName = try c.decode(String.self, forKey: .objectIdFieldName)
        // An empty result may come back as `null`.
        objectIds = try c.decodeIfPresent([Int64].self, forKey: .objectIds) ?? []
    }
}
