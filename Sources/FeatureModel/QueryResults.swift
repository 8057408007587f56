/// A query answer with features: `…/<id>/query?f=json`.
public struct FeatureSet: Sendable, Hashable, Codable {
    public var objectIdFieldName: String?
    public var globalIdFieldName: String?
    public var geometryType: GeometryType?
    public var spatialReference: SpatialReference?
    public var hasZ: Bool?
    public var hasM: Bool?
    public var fields: [Field]?
    public var features: [Feature]
    /// True when more rows match than this answer holds (paging or `maxRecordCount`).
    public var exceededTransferLimit: Bool?

    public init(
        objectIdFieldName: String?, globalIdFieldName: String?, geometryType: GeometryType?,
        spatialReference: SpatialReference?, fields: [Field]?, features: [Feature], exceededTransferLimit: Bool?
    ) {
        self.objectIdFieldName = objectIdFieldName
        self.globalIdFieldName = globalIdFieldName
        self.geometryType = geometryType
        self.spatialReference = spatialReference
        self.fields = fields
        self.features = features
        self.exceededTransferLimit = exceededTransferLimit
        if geometryType != nil {
            self.hasZ = false
            self.hasM = false
        }
    }

    private enum CodingKeys: String, CodingKey {
        case objectIdFieldName, globalIdFieldName, geometryType, spatialReference, hasZ, hasM, fields, features,
            exceededTransferLimit
    }

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
    }
}

/// The answer to `returnCountOnly=true`.
public struct CountResult: Sendable, Hashable, Codable {
    public var count: Int
    public init(count: Int) { self.count = count }
}

/// The answer to `returnIdsOnly=true`; never capped by `maxRecordCount`.
public struct ObjectIdsResult: Sendable, Hashable, Codable {
    public var objectIdFieldName: String
    public var objectIds: [Int64]

    public init(objectIdFieldName: String, objectIds: [Int64]) {
        self.objectIdFieldName = objectIdFieldName
        self.objectIds = objectIds
    }

    private enum CodingKeys: String, CodingKey { case objectIdFieldName, objectIds }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        objectIdFieldName = try c.decode(String.self, forKey: .objectIdFieldName)
        // An empty result may come back as `null`.
        objectIds = try c.decodeIfPresent([Int64].self, forKey: .objectIds) ?? []
    }
}
