import FeatureModel

extension RelatedRecordsQuery {
    /// Reads a queryRelatedRecords request on layer `source`.
    ///
    /// `objectIds` (required, comma list of source object IDs), `relationshipId` (default 0), `outFields` (`*` or a
    /// comma list of the related layer's fields; default its object ID), `definitionExpression` (the query dialect,
    /// on the related rows), `returnGeometry` (default true), `orderByFields`, `returnCountOnly`, `resultOffset` and
    /// `resultRecordCount` (default and cap `maxRecordCount`, over all groups). Other parameters are ignored.
    /// - Parameters:
    ///   - rejectedWhere: Called with the reason when the definition expression is rejected (for the log).
    /// - Throws: ``ServiceError`` (400) naming the first invalid parameter.
    static func parse(
        _ parameters: RequestParameters, source: LayerSchema, schemas: [Int: LayerSchema], maxRecordCount: Int,
        rejectedWhere: (WhereClauseError) -> Void = { _ in }
    ) throws(ServiceError) -> RelatedRecordsQuery {
        guard let idsText = parameters["objectIds"] else { throw ServiceError.invalidParameter("objectIds", reason: "required") }
        let objectIds = try LayerQuery.parseObjectIds(idsText)
        let relationshipId = try parameters.int("relationshipId") ?? 0
        let path = try RelationshipPath.resolve(relationshipId, from: source, schemas: schemas)
        guard let related = schemas[path.related] else { throw ServiceError.notFound("Layer \(path.related) does not exist.") }
        let filter: SQLFragment
        do {
            filter = try WhereCompiler(fields: related.fields).compile(parameters["definitionExpression"] ?? "1=1")
        } catch {
            rejectedWhere(error)
            throw ServiceError(
                ArcGISError(code: 400, message: ServiceError.unableToComplete, details: ["'definitionExpression' parameter is invalid"]))
        }
        let outFields = try related.outFieldIndexes(parameters["outFields"])
        var orderBy: [LayerQuery.OrderTerm] = []
        for item in (parameters["orderByFields"] ?? "").split(separator: ",") {
            let words = item.split(whereSeparator: \.isWhitespace)
            guard !words.isEmpty else { continue }
            guard words.count <= 2, let index = related.fieldIndex(named: String(words[0])),
                words.count == 1 || ["ASC", "DESC"].contains(words[1].uppercased())
            else {
                throw ServiceError.invalidParameter("orderByFields", reason: "'\(String(item).trimmed)' is not '<field> [ASC|DESC]'")
            }
            orderBy.append(LayerQuery.OrderTerm(field: index, descending: words.count == 2 && words[1].uppercased() == "DESC"))
        }
        let output: Output
        if try parameters.bool("returnCountOnly", default: false) {
            output = .count
        } else {
            let (offset, limit) = try parameters.page(maxRecordCount: maxRecordCount)
            output = .records(offset: offset, limit: limit)
        }
        return RelatedRecordsQuery(
            relationshipId: relationshipId, objectIds: objectIds, filter: filter, outFields: outFields,
            returnGeometry: try parameters.bool("returnGeometry", default: true), orderBy: orderBy, output: output
        )
    }
}
