public import FeatureModel

/// What a related-records query asks for (`…/<id>/queryRelatedRecords`), as the ArcGIS Maps SDKs' related query
/// parameters.
public struct RelatedQueryParameters: Sendable, Hashable {
    /// The relationship to follow (an `id` of the layer's `relationships`).
    public var relationshipId: Int
    /// `definitionExpression`: a where clause on the related rows. Default `1=1`.
    public var definitionExpression: String
    /// `outFields` of the related rows. Default `*`.
    public var outFields: [String]
    /// `returnGeometry`. Default true (ignored for tables).
    public var returnGeometry: Bool
    /// `orderByFields` of the related rows; give one for stable pages.
    public var orderByFields: [String]
    /// `resultRecordCount`: related rows per page (over all source features); nil uses the service's maximum.
    public var pageSize: Int?

    /// Parameters; every argument but the relationship defaults to the documented property default.
    public init(
        relationshipId: Int, definitionExpression: String = "1=1", outFields: [String] = ["*"], returnGeometry: Bool = true,
        orderByFields: [String] = [], pageSize: Int? = nil
    ) {
        self.relationshipId = relationshipId
        self.definitionExpression = definitionExpression
        self.outFields = outFields
        self.returnGeometry = returnGeometry
        self.orderByFields = orderByFields
        self.pageSize = pageSize
    }

    func formFields(objectIds: [Int64]) -> [FormField] {
        var fields = [
            FormField("f", "json"), FormField("objectIds", objectIds.map(String.init).joined(separator: ",")),
            FormField("relationshipId", String(relationshipId)), FormField("definitionExpression", definitionExpression),
            FormField("outFields", outFields.joined(separator: ",")), FormField("returnGeometry", String(returnGeometry)),
        ]
        if !orderByFields.isEmpty { fields.append(FormField("orderByFields", orderByFields.joined(separator: ","))) }
        return fields
    }
}

/// The related features of one source feature.
public struct RelatedFeatureQueryResult: Sendable, Hashable {
    /// The source feature's object ID.
    public var objectId: Int64
    /// Its related features.
    public var features: [Feature]

    /// A result.
    package init(objectId: Int64, features: [Feature]) {
        self.objectId = objectId
        self.features = features
    }
}

extension ServiceFeatureTable {
    /// The features related to the rows `objectIds` of this table, all pages fetched (`resultOffset` over the whole
    /// answer, merged per source feature).
    /// - Returns: One result per source feature that has related features, in the service's order.
    /// - Throws: ``FeatureServiceError`` (an ArcGIS 400 error for an unknown relationship); `CancellationError`.
    public nonisolated func queryRelated(objectIds: [Int64], _ parameters: RelatedQueryParameters) async throws -> [RelatedFeatureQueryResult] {
        var order: [Int64] = []
        var groups: [Int64: [Feature]] = [:]
        var offset = 0
        for _ in 0..<FeatureLayerClient.maxPages {
            var fields = parameters.formFields(objectIds: objectIds) + [FormField("resultOffset", String(offset))]
            if let pageSize = parameters.pageSize { fields.append(FormField("resultRecordCount", String(pageSize))) }
            let page = try await client.post("queryRelatedRecords", fields: fields, as: RelatedRecordsResult.self, operation: "related query")
            var received = 0
            for group in page.relatedRecordGroups {
                if groups[group.objectId] == nil { order.append(group.objectId) }
                groups[group.objectId, default: []] += group.relatedRecords ?? []
                received += group.relatedRecords?.count ?? 0
            }
            guard page.exceededTransferLimit == true else { return order.map { RelatedFeatureQueryResult(objectId: $0, features: groups[$0]!) } }
            guard received > 0 else {
                throw FeatureServiceError.invalidRequest(
                    "the service reported more related rows at offset \(offset) but sent none", operation: "related query",
                    url: client.exchangeURL("queryRelatedRecords"))
            }
            offset += received
        }
        throw FeatureServiceError.invalidRequest(
            "gave up after \(FeatureLayerClient.maxPages) pages; use a larger pageSize", operation: "related query",
            url: client.exchangeURL("queryRelatedRecords"))
    }

    /// The features related to `feature` (a feature of this table with its object ID).
    /// - Throws: ``FeatureServiceError`` also when `feature` has no object ID; `CancellationError`.
    public nonisolated func queryRelated(to feature: Feature, _ parameters: RelatedQueryParameters) async throws -> [Feature] {
        guard let objectId = objectId(of: feature) else {
            throw FeatureServiceError.invalidRequest(
                "the feature has no object ID (\(info.objectIdField)); apply it or query it first", operation: "related query", url: client.url)
        }
        return try await queryRelated(objectIds: [objectId], parameters).first?.features ?? []
    }

    /// How many related rows each of the rows `objectIds` has (`returnCountOnly=true`).
    /// - Returns: The count by source object ID; sources without related rows are missing or 0.
    /// - Throws: ``FeatureServiceError``; `CancellationError`.
    public nonisolated func queryRelatedCounts(objectIds: [Int64], _ parameters: RelatedQueryParameters) async throws -> [Int64: Int] {
        let fields = parameters.formFields(objectIds: objectIds) + [FormField("returnCountOnly", "true")]
        let answer = try await client.post("queryRelatedRecords", fields: fields, as: RelatedRecordsResult.self, operation: "related count")
        var counts: [Int64: Int] = [:]
        for group in answer.relatedRecordGroups { counts[group.objectId, default: 0] += group.count ?? group.relatedRecords?.count ?? 0 }
        return counts
    }
}
