public import FeatureModel

extension ServiceFeatureTable {
    /// The features matching `parameters`, fetched page by page while iterated (see ``QueryPages``).
    ///
    /// Only rows in the service are returned; pending local edits are not overlaid.
    public nonisolated func queryFeatures(_ parameters: QueryParameters = QueryParameters()) -> QueryFeatures {
        QueryFeatures(pages: queryPages(parameters))
    }

    /// The pages of the query `parameters`, fetched while iterated.
    public nonisolated func queryPages(_ parameters: QueryParameters = QueryParameters()) -> QueryPages {
        QueryPages(client: client, parameters: parameters)
    }

    /// Every feature matching `parameters`, all pages collected.
    /// - Throws: ``FeatureServiceError``; `CancellationError`.
    public nonisolated func queryAllFeatures(_ parameters: QueryParameters = QueryParameters()) async throws -> [Feature] {
        var features: [Feature] = []
        for try await page in queryPages(parameters) { features += page.features }
        return features
    }

    /// The number of rows matching the filters of `parameters` (`returnCountOnly=true`; with
    /// ``QueryParameters/returnDistinctValues``, the distinct combinations of ``QueryParameters/outFields``).
    /// - Throws: ``FeatureServiceError``; `CancellationError`.
    public nonisolated func queryFeatureCount(_ parameters: QueryParameters = QueryParameters()) async throws -> Int {
        var fields = [FormField("f", "json")] + parameters.filterFields + [FormField("returnCountOnly", "true")]
        if parameters.returnDistinctValues {
            fields += [FormField("returnDistinctValues", "true"), FormField("outFields", parameters.outFields.joined(separator: ","))]
        }
        return try await client.post("query", fields: fields, as: CountResult.self, operation: "count query").count
    }

    /// The object IDs of the rows matching the filters of `parameters` (`returnIdsOnly=true`, never capped), in
    /// ``QueryParameters/orderByFields`` order.
    /// - Throws: ``FeatureServiceError``; `CancellationError`.
    public nonisolated func queryObjectIds(_ parameters: QueryParameters = QueryParameters()) async throws -> [Int64] {
        var fields = [FormField("f", "json")] + parameters.filterFields + [FormField("returnIdsOnly", "true")]
        if !parameters.orderByFields.isEmpty { fields.append(FormField("orderByFields", parameters.orderByFields.joined(separator: ","))) }
        return try await client.post("query", fields: fields, as: ObjectIdsResult.self, operation: "ids query").objectIds
    }

    /// The extent of the rows matching the filters of `parameters` (`returnExtentOnly=true`), and their count.
    /// - Returns: The extent (nil when no row has a geometry) and the count.
    /// - Throws: ``FeatureServiceError``; `CancellationError`.
    public nonisolated func queryExtent(_ parameters: QueryParameters = QueryParameters()) async throws -> (extent: Extent?, count: Int) {
        var fields = [FormField("f", "json")] + parameters.filterFields
        fields += [FormField("returnExtentOnly", "true"), FormField("returnCountOnly", "true")]
        if let outSR = parameters.outSR { fields.append(FormField("outSR", String(outSR))) }
        let answer = try await client.post("query", fields: fields, as: JSONValue.self, operation: "extent query")
        guard case .object(let members) = answer else { return (nil, 0) }
        let count = Int(members["count"]?.intValue ?? 0)
        guard case .object(let box)? = members["extent"], let xmin = box["xmin"]?.doubleValue, let ymin = box["ymin"]?.doubleValue,
            let xmax = box["xmax"]?.doubleValue, let ymax = box["ymax"]?.doubleValue
        else { return (nil, count) }
        let wkid = (box["spatialReference"].flatMap { if case .object(let sr) = $0 { sr["wkid"]?.intValue } else { nil } }).map { Int($0) }
        return (Extent(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax, spatialReference: wkid.map { SpatialReference(wkid: $0) }), count)
    }

    /// Statistics over the rows matching the filters of `parameters` (`outStatistics`), grouped by `groupBy`.
    /// - Parameters:
    ///   - statistics: The statistics to compute.
    ///   - groupBy: `groupByFieldsForStatistics`; empty for one row over all matches.
    ///   - parameters: The filters, and ``QueryParameters/orderByFields`` for the groups.
    /// - Returns: One feature per group, its attributes the group fields and the statistics.
    /// - Throws: ``FeatureServiceError``; `CancellationError`.
    public nonisolated func queryStatistics(
        _ statistics: [QueryParameters.Statistic], groupBy: [String] = [], _ parameters: QueryParameters = QueryParameters()
    ) async throws -> [Feature] {
        let definitions = JSONValue.array(
            statistics.map { statistic in
                var entry: [String: JSONValue] = [
                    "statisticType": .string(statistic.statisticType), "onStatisticField": .string(statistic.onStatisticField),
                ]
                if let name = statistic.outStatisticFieldName { entry["outStatisticFieldName"] = .string(name) }
                return .object(entry)
            })
        var writer = JSONWriter(capacity: 128)
        writer.write(definitions)
        var fields = [FormField("f", "json")] + parameters.filterFields + [FormField("outStatistics", writer.string)]
        if !groupBy.isEmpty { fields.append(FormField("groupByFieldsForStatistics", groupBy.joined(separator: ","))) }
        if !parameters.orderByFields.isEmpty { fields.append(FormField("orderByFields", parameters.orderByFields.joined(separator: ","))) }
        return try await client.post("query", fields: fields, as: FeatureSet.self, operation: "statistics query").features
    }
}
