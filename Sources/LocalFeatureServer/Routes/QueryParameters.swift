import FeatureModel

extension LayerQuery {
    /// Reads a layer query from request parameters.
    ///
    /// `where` (default all rows; see ``WhereParser``), `objectIds` (comma list), `outFields` (`*` or a comma
    /// list; default the object ID only, as ArcGIS), `returnGeometry` (default true), `returnCountOnly` (ignores
    /// paging; wins over `returnIdsOnly`), `returnIdsOnly` (uncapped), `orderByFields` (`a ASC, b DESC`),
    /// `resultOffset` and `resultRecordCount` (default and cap `maxRecordCount`). Other parameters are ignored.
    /// - Parameters:
    ///   - rejectedWhere: Called with the reason when the `where` clause is rejected (for the log).
    /// - Throws: ``ServiceError`` (400) naming the first invalid parameter.
    static func parse(
        _ parameters: RequestParameters,
        layer: LayerSchema,
        maxRecordCount: Int,
        rejectedWhere: (WhereClauseError) -> Void = { _ in }
    ) throws(ServiceError) -> LayerQuery {
        let filter: SQLFragment
        do {
            filter = try WhereCompiler(fields: layer.fields).compile(parameters["where"] ?? "1=1")
        } catch {
            rejectedWhere(error)
            throw ServiceError.invalidWhere
        }
        let objectIds = try parameters["objectIds"].map { text throws(ServiceError) in try parseObjectIds(text) }
        let outFields = try parseOutFields(parameters["outFields"], layer: layer)
        let orderBy = try parameters["orderByFields"].map { text throws(ServiceError) in try parseOrderBy(text, layer: layer) } ?? []
        let returnGeometry = try parameters.bool("returnGeometry", default: true)
        let output: Output
        if try parameters.bool("returnCountOnly", default: false) {
            output = .count
        } else if try parameters.bool("returnIdsOnly", default: false) {
            output = .objectIds
        } else {
            let offset = try parameters.int("resultOffset") ?? 0
            guard offset >= 0 else { throw ServiceError.invalidParameter("resultOffset", reason: "must not be negative") }
            let requested = try parameters.int("resultRecordCount") ?? 0
            guard requested >= 0 else { throw ServiceError.invalidParameter("resultRecordCount", reason: "must not be negative") }
            output = .features(offset: offset, limit: requested == 0 ? maxRecordCount : min(requested, maxRecordCount))
        }
        return LayerQuery(
            filter: filter,
            objectIds: objectIds,
            outFields: outFields,
            returnGeometry: returnGeometry,
            orderBy: orderBy,
            output: output
        )
    }

    /// `1,2,3` (a JSON-style `[1,2,3]` is accepted too).
    static func parseObjectIds(_ text: String) throws(ServiceError) -> [Int64] {
        var body = Substring(text.trimmed)
        if body.hasPrefix("["), body.hasSuffix("]") { body = body.dropFirst().dropLast() }
        var ids: [Int64] = []
        for item in body.split(separator: ",") {
            let trimmed = String(item).trimmed
            if trimmed.isEmpty { continue }
            guard let id = Int64(trimmed) else { throw ServiceError.invalidParameter("objectIds", reason: "'\(trimmed)' is not an object ID") }
            ids.append(id)
        }
        return ids
    }

    private static func parseOutFields(_ text: String?, layer: LayerSchema) throws(ServiceError) -> [Int] {
        guard let text else { return [layer.objectIdField] }
        var indexes: [Int] = []
        for item in text.split(separator: ",") {
            let name = String(item).trimmed
            if name.isEmpty { continue }
            if name == "*" { return Array(layer.fields.indices) }
            guard let index = layer.fieldIndex(named: name) else {
                throw ServiceError.invalidParameter("outFields", reason: "Field '\(name)' does not exist.")
            }
            if !indexes.contains(index) { indexes.append(index) }
        }
        return indexes.isEmpty ? [layer.objectIdField] : indexes
    }

    private static func parseOrderBy(_ text: String, layer: LayerSchema) throws(ServiceError) -> [OrderTerm] {
        var terms: [OrderTerm] = []
        for item in text.split(separator: ",") {
            let words = item.split(whereSeparator: \.isWhitespace)
            guard !words.isEmpty else { continue }
            guard words.count <= 2, let index = layer.fieldIndex(named: String(words[0])) else {
                throw ServiceError.invalidParameter("orderByFields", reason: "'\(String(item).trimmed)' is not '<field> [ASC|DESC]'")
            }
            var descending = false
            if words.count == 2 {
                switch words[1].uppercased() {
                case "ASC": descending = false
                case "DESC": descending = true
                default: throw ServiceError.invalidParameter("orderByFields", reason: "'\(words[1])' is not ASC or DESC")
                }
            }
            terms.append(OrderTerm(field: index, descending: descending))
        }
        return terms
    }
}
