/// The related rows of one source feature in a queryRelatedRecords answer.
///
/// With `returnCountOnly=true` the group carries `count` instead of `relatedRecords`.
package struct RelatedRecordGroup: Sendable, Hashable, Codable {
    /// The source feature's object ID.
    package var objectId: Int64
    package var relatedRecords: [Feature]?
    package var count: Int?

    package init(objectId: Int64, relatedRecords: [Feature]? = nil, count: Int? = nil) {
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
package struct RelatedRecordsResult: Sendable, Hashable, Codable {
    package var geometryType: GeometryType?
    package var spatialReference: SpatialReference?
    package var fields: [Field]?
    package var relatedRecordGroups: [RelatedRecordGroup]
    package var exceededTransferLimit: Bool?

    package init(
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

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        geometryType = try c.decodeIfPresent(GeometryType.self, forKey: .geometryType)
        spatialReference = try c.decodeIfPresent(SpatialReference.self, forKey: .spatialReference)
        fields = try c.decodeIfPresent([Field].self, forKey: .fields)
        relatedRecordGroups = try c.decodeIfPresent([RelatedRecordGroup].self, forKey: .relatedRecordGroups) ?? []
        exceededTransferLimit = try c.decodeIfPresent(Bool.self, forKey: .exceededTransferLimit)
    }
}
