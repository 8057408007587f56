/// The related rows of one source feature in a queryRelatedRecords answer.
///
/// With `returnCountOnly=true` the group carries `count` instead of `relatedRecords`.
public struct RelatedRecordGroup: Sendable, Hashable, Codable {
    /// The source feature's object ID.
    public var objectId: Int64
    public var relatedRecords: [Feature]?
    public var count: Int?

    public init(objectId: Int64, relatedRecords: [Feature]? = nil, count: Int? = nil) {
        self.objectId = objectId
        self.relatedRecords = relatedRecords
        self.count = count
    }
}

/// The answer to `…/<id>/queryRelatedRecords`.
///
/// ```json
/// {"geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},"fields":[…],
///  "relatedRecordGroups":[{"objectId":1,"relatedRecords":[{"attributes":{…},"geometry":{…}}]}],
///  "exceededTransferLimit":false}
/// ```
/// Source features without related rows are left out.
public struct RelatedRecordsResult: Sendable, Hashable, Codable {
    public var geometryType: GeometryType?
    public var spatialReference: SpatialReference?
    public var fields: [Field]?
    public var relatedRecordGroups: [RelatedRecordGroup]
    public var exceededTransferLimit: Bool?

    public init(
        geometryType: GeometryType? = nil, spatialReference: SpatialReference? = nil, fields: [Field]? = nil,
        relatedRecordGroups: [RelatedRecordGroup], exceededTransferLimit: Bool? = nil
    ) {
        self.geometryType = geometryType
        self.spatialReference = spatialReference
        self.fields = fields
        self.relatedRecordGroups = relatedRecordGroups
        self.exceededTransferLimit = exceededTransferLimit
    }

    private enum CodingKeys: String, CodingKey { case geometryType, spatialReference, fields, relatedRecordGroups, exceededTransferLimit }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        geometryType = try c.decodeIfPresent(GeometryType.self, forKey: .geometryType)
        spatialReference = try c.decodeIfPresent(SpatialReference.self, forKey: .spatialReference)
        fields = try c.decodeIfPresent([Field].self, forKey: .fields)
        relatedRecordGroups = try c.decodeIfPresent([RelatedRecordGroup].self, forKey: .relatedRecordGroups) ?? []
        exceededTransferLimit = try c.decodeIfPresent(Bool.self, forKey: .exceededTransferLimit)
    }
}
