import FeatureModel

extension LayerQuery {
    /// Reads a layer query from request parameters.
    ///
    /// Filters (ANDed): `where` (default all rows; dialect on ``WhereParser``), `objectIds` (comma list), and
    /// `geometry` with `geometryType`, `inSR` and `spatialRel` (see ``SpatialFilter``).
    /// Output: `outFields` (`*` or a comma list; default the object ID only, as ArcGIS), `returnGeometry` (default
    /// true), `outSR` (4326 or 102100/3857; default 4326) and `geometryPrecision` (0…17 decimals), `orderByFields`
    /// (`a ASC, b DESC`), `resultOffset` and `resultRecordCount` (default and cap: ``RecordLimits``, by `resultType`
    /// and `maxRecordCountFactor`; `returnExceededLimitFeatures=false` with `resultType=tile` answers no features
    /// when more match; `cacheHint` is accepted),
    /// `maxAllowableOffset` (see ``Generalizer``) and `quantizationParameters` (see ``Quantization``).
    /// Forms, first match wins: `returnCountOnly` (ignores paging; with `returnDistinctValues` counts distinct
    /// combinations of `outFields`; with `returnExtentOnly` adds the extent), `returnIdsOnly` (uncapped),
    /// `returnExtentOnly`, `outStatistics` (with `groupByFieldsForStatistics`; see ``StatisticsQuery``),
    /// `returnDistinctValues` (distinct `outFields`, paged), features. Other parameters are ignored.
    /// - Parameters:
    ///   - now: The current time in epoch milliseconds, for `CURRENT_DATE`/`CURRENT_TIMESTAMP` in `where`.
    ///   - rejectedWhere: Called with the reason when the `where` clause is rejected (for the log).
    /// - Throws: ``ServiceError`` (400) naming the first invalid parameter; a rejected `where` is always ArcGIS'
    ///   fixed ``ServiceError/invalidWhere``.
    static func parse(
        _ parameters: RequestParameters,
        layer: LayerSchema,
        limits: RecordLimits,
        now: Int64 = WhereCompiler.systemMilliseconds(),
        rejectedWhere: (WhereClauseError) -> Void = { _ in }
    ) throws(ServiceError) -> LayerQuery {
        let filter: SQLFragment
        do {
            filter = try WhereCompiler(fields: layer.fields, now: now).compile(parameters["where"] ?? "1=1")
        } catch {
            rejectedWhere(error)
            throw ServiceError.invalidWhere
        }
        let objectIds = try parameters["objectIds"].map { text throws(ServiceError) in try parseObjectIds(text) }
        let spatial = try SpatialFilter.parse(parameters, storage: layer.geometry)
        let geometryOutput = try parseGeometryOutput(parameters, layer: layer)
        let outFields = try layer.outFieldIndexes(parameters["outFields"])
        let orderTerms = try parameters["orderByFields"].map { text throws(ServiceError) in try parseOrderTerms(text) } ?? []
        let returnGeometry = try parameters.bool("returnGeometry", default: true)
        let distinct = try parameters.bool("returnDistinctValues", default: false)
        let extentOnly = try parameters.bool("returnExtentOnly", default: false)
        let (resultType, factor) = try RecordLimits.read(parameters)
        let cap = limits.cap(resultType, factor: factor)
        // Only tile queries may ask for nothing when the tile holds too much (ArcGIS: the client then draws it
        // coarser instead of paging).
        let returnExceeded = try parameters.bool("returnExceededLimitFeatures", default: true)
        let dropExceeded = resultType == .tile && !returnExceeded

        // The layers advertise supportsHavingClause: false; a having clause is refused, never silently dropped.
        if let having = parameters["having"], !having.trimmed.isEmpty {
            throw ServiceError.invalidParameter(
                "having",
                reason:
                    "this service does not support the having clause (its layers do not advertise supportsHavingClause); filter the statistics after the query"
            )
        }
        var orderBy: [OrderTerm] = []
        let output: Output
        if try parameters.bool("returnCountOnly", default: false) {
            output = distinct ? .distinctCount : extentOnly ? .extent(withCount: true) : .count
        } else if try parameters.bool("returnIdsOnly", default: false) {
            orderBy = try resolve(orderTerms, layer: layer)
            output = .objectIds
        } else if extentOnly {
            output = .extent(withCount: false)
        } else if let statistics = parameters["outStatistics"] {
            output = .statistics(
                try StatisticsQuery.parse(statistics, groupBy: parameters["groupByFieldsForStatistics"], orderBy: orderTerms, layer: layer)
            )
        } else {
            orderBy = try resolve(orderTerms, layer: layer)
            let (offset, limit) = try parameters.page(maxRecordCount: cap)
            if distinct {
                for term in orderBy where !outFields.contains(term.field) {
                    throw ServiceError.invalidParameter(
                        "orderByFields", reason: "with returnDistinctValues, '\(layer.fields[term.field].name)' must be one of outFields")
                }
                output = .distinct(offset: offset, limit: limit)
            } else {
                output = .features(offset: offset, limit: limit, dropExceeded: dropExceeded)
            }
        }
        return LayerQuery(
            filter: filter,
            objectIds: objectIds,
            spatial: spatial,
            outFields: outFields,
            returnGeometry: returnGeometry,
            orderBy: orderBy,
            output: output,
            geometryOutput: geometryOutput
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

    private static func parseGeometryOutput(_ parameters: RequestParameters, layer: LayerSchema) throws(ServiceError) -> GeometryOutput {
        var output = GeometryOutput()
        if let text = parameters["outSR"] {
            guard let reference = QuerySpatialReference(parameter: text) else {
                throw ServiceError.invalidParameter("outSR", reason: "supported: 4326, 102100 (3857)")
            }
            output.spatialReference = reference
        }
        if let precision = try parameters.int("geometryPrecision") {
            guard (0...17).contains(precision) else { throw ServiceError.invalidParameter("geometryPrecision", reason: "must be 0…17") }
            output.precision = precision
        }
        if let text = parameters["maxAllowableOffset"], !text.trimmed.isEmpty {
            guard let offset = Double(text.trimmed), offset.isFinite, offset >= 0 else {
                throw ServiceError.invalidParameter("maxAllowableOffset", reason: "must be a number of output units, 0 or more")
            }
            output.maxAllowableOffset = offset > 0 ? offset : nil
        }
        output.quantization = try Quantization.parse(parameters, output: output.spatialReference, layerExtent: layer.info.extent)
        return output
    }

    /// `name [ASC|DESC], …` as names and directions, not yet resolved (statistics order by output names).
    private static func parseOrderTerms(_ text: String) throws(ServiceError) -> [(name: String, descending: Bool)] {
        var terms: [(name: String, descending: Bool)] = []
        for item in text.split(separator: ",") {
            let words = item.split(whereSeparator: \.isWhitespace)
            guard !words.isEmpty else { continue }
            guard words.count <= 2 else {
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
            terms.append((String(words[0]), descending))
        }
        return terms
    }

    private static func resolve(_ terms: [(name: String, descending: Bool)], layer: LayerSchema) throws(ServiceError) -> [OrderTerm] {
        var resolved: [OrderTerm] = []
        for term in terms {
            guard let index = layer.fieldIndex(named: term.name) else {
                throw ServiceError.invalidParameter("orderByFields", reason: "Field '\(term.name)' does not exist.")
            }
            resolved.append(OrderTerm(field: index, descending: term.descending))
        }
        return resolved
    }
}

extension LayerSchema {
    /// The field indexes an `outFields` parameter names (`*` for all; missing or empty: the object ID only).
    /// - Throws: ``ServiceError`` (400) naming a field the layer does not have.
    func outFieldIndexes(_ text: String?) throws(ServiceError) -> [Int] {
        guard let text else { return [objectIdField] }
        var indexes: [Int] = []
        for item in text.split(separator: ",") {
            let name = String(item).trimmed
            if name.isEmpty { continue }
            if name == "*" { return Array(fields.indices) }
            guard let index = fieldIndex(named: name) else {
                throw ServiceError.invalidParameter("outFields", reason: "Field '\(name)' does not exist.")
            }
            if !indexes.contains(index) { indexes.append(index) }
        }
        return indexes.isEmpty ? [objectIdField] : indexes
    }
}

extension RequestParameters {
    /// `resultOffset` and `resultRecordCount`: the count defaults to, and is capped at, `maxRecordCount`.
    /// - Throws: ``ServiceError`` (400) naming a negative or non-numeric value, or a count of 0.
    func page(maxRecordCount: Int) throws(ServiceError) -> (offset: Int, limit: Int) {
        let offset = try int("resultOffset") ?? 0
        guard offset >= 0 else { throw ServiceError.invalidParameter("resultOffset", reason: "must not be negative") }
        guard let requested = try int("resultRecordCount") else { return (offset, maxRecordCount) }
        // 0 is refused rather than read as "no limit": a client asking for no rows must not get maxRecordCount of them.
        guard requested >= 1 else {
            throw ServiceError.invalidParameter(
                "resultRecordCount", reason: "must be 1 or more; leave it out for up to maxRecordCount (\(maxRecordCount)) rows")
        }
        return (offset, min(requested, maxRecordCount))
    }
}
