import FeatureCollectionPBF
import FeatureModel
import Logging
import NIOCore

/// Answers `…/FeatureServer/<id>/query`: parameters → ``LayerQuery`` → the store's read connections → JSON, GeoJSON
/// (`f=geojson`) or Esri's FeatureCollection protocol buffers (`f=pbf`). Errors are JSON envelopes whatever `f` says.
///
/// Isolation: none of its own; the query runs on the store's `DatabasePool` readers (WAL), so it neither waits
/// for nor blocks the writer.
enum LayerQueryResponse {
    /// The JSON answer to a layer query.
    /// - Throws: ``ServiceError`` (404 unknown layer, 400 invalid parameters); `DatabaseError`; `CancellationError`.
    static func answer(
        store: FeatureStore, layerId: Int, parameters: RequestParameters, limits: RecordLimits, logger: Logger
    ) async throws -> ServerResponse {
        guard let layer = store.schemas[layerId] else { throw ServiceError.notFound("Layer \(layerId) does not exist.") }
        var query = try LayerQuery.parse(parameters, layer: layer, limits: limits) { error in
            logger.debug("rejected where clause", metadata: ["where": "\(parameters["where"] ?? "")", "reason": "\(error)"])
        }
        let format = parameters["f"]?.trimmed.lowercased()
        let geoJSON = format == "geojson"
        if geoJSON {
            // RFC 7946: WGS 84 coordinates as numbers, whatever outSR and quantizationParameters ask.
            query.geometryOutput.spatialReference = .wgs84
            query.geometryOutput.quantization = nil
        }
        let answer = try await store.query(layerId: layerId, query)
        if format == "pbf" {
            let bytes = try pbfBody(answer, query: query, layer: layer).serializedBytes()
            return ServerResponse(status: 200, body: ByteBuffer(bytes: bytes), contentType: PBFQueryAnswer.contentType)
        }
        if geoJSON, let collection = geoJSONBody(answer, query: query, layer: layer) {
            var response = FeatureServerResponder.render(collection, pretty: false)
            response.contentType = geoJSONContentType
            return response
        }
        return FeatureServerResponder.render(try body(answer, query: query, layer: layer), pretty: parameters.wantsPrettyJSON)
    }

    /// The `Content-Type` of `f=geojson` answers (RFC 7946 §12).
    static let geoJSONContentType = "application/geo+json; charset=utf-8"

    /// The `f=geojson` form of a features or statistics answer; nil for the forms GeoJSON has no shape for.
    static func geoJSONBody(_ answer: QueryAnswer, query: LayerQuery, layer: LayerSchema) -> GeoJSONFeatureCollection? {
        let objectIdField = layer.fields[layer.objectIdField].name
        switch answer {
        case .features(let features, let exceeded):
            return GeoJSONFeatureCollection(features: features, objectIdField: objectIdField, exceededTransferLimit: exceeded)
        case .statistics(let rows):
            return GeoJSONFeatureCollection(features: rows, objectIdField: objectIdField, exceededTransferLimit: false)
        case .count, .objectIds, .extent:
            return nil
        }
    }

    /// The `f=pbf` form of an answer: every answer has one (statistics are features without geometry).
    static func pbfBody(_ answer: QueryAnswer, query: LayerQuery, layer: LayerSchema) throws -> PBFQueryAnswer {
        switch answer {
        case .count(let count):
            return .count(count)
        case .objectIds(let ids):
            return .objectIds(objectIdFieldName: layer.fields[layer.objectIdField].name, ids)
        case .extent(let extent, let count):
            var stated = extent
            if stated != nil, stated?.spatialReference == nil { stated?.spatialReference = query.geometryOutput.spatialReference.wire }
            return .extent(stated, count: count)
        case .statistics, .features:
            guard let set = try body(answer, query: query, layer: layer) as? FeatureSet else {
                throw ServiceError.internalError("a features answer without a feature set")
            }
            return .features(set)
        }
    }

    /// The wire value of `answer`.
    static func body(_ answer: QueryAnswer, query: LayerQuery, layer: LayerSchema) throws -> any Encodable {
        switch answer {
        case .count(let count):
            return CountResult(count: count)
        case .objectIds(let ids):
            return ObjectIdsResult(objectIdFieldName: layer.fields[layer.objectIdField].name, objectIds: ids)
        case .extent(let extent, let count):
            let reference = query.geometryOutput.spatialReference.wire
            return QueryExtentResult(count: count, extent: extent, spatialReference: reference)
        case .statistics(let rows):
            guard case .statistics(let statistics) = query.output else { throw ServiceError.internalError("statistics answer without statistics") }
            return FeatureSet(
                objectIdFieldName: nil, globalIdFieldName: nil, geometryType: nil, spatialReference: nil,
                fields: statistics.outputFields(layer: layer), features: rows, exceededTransferLimit: nil
            )
        case .features(let features, let exceeded):
            let info = layer.info
            let isDistinct: Bool
            if case .distinct = query.output { isDistinct = true } else { isDistinct = false }
            let geometryType = isDistinct ? nil : info.geometryType
            return FeatureSet(
                objectIdFieldName: layer.fields[layer.objectIdField].name,
                globalIdFieldName: layer.globalIdField.map { layer.fields[$0].name },
                geometryType: geometryType,
                spatialReference: geometryType == nil ? nil : query.geometryOutput.spatialReference.wire,
                fields: query.outFields.map { layer.fields[$0] },
                features: features,
                exceededTransferLimit: exceeded,
                transform: geometryType == nil ? nil : query.geometryOutput.quantization?.transform
            )
        }
    }
}

/// The answer to `returnExtentOnly=true`: `{"extent":{…}}`, plus `count` with `returnCountOnly=true`.
///
/// With no matching geometry the extent is empty, written as ArcGIS writes empty geometries: `"NaN"` coordinates.
struct QueryExtentResult: Sendable, Hashable, Encodable {
    var count: Int?
    var extent: Extent?
    var spatialReference: SpatialReference

    private enum CodingKeys: String, CodingKey { case count, extent }
    private enum ExtentKeys: String, CodingKey { case xmin, ymin, xmax, ymax, spatialReference }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(count, forKey: .count)
        var box = container.nestedContainer(keyedBy: ExtentKeys.self, forKey: .extent)
        if let extent {
            try box.encode(extent.xmin, forKey: .xmin)
            try box.encode(extent.ymin, forKey: .ymin)
            try box.encode(extent.xmax, forKey: .xmax)
            try box.encode(extent.ymax, forKey: .ymax)
        } else {
            for key in [ExtentKeys.xmin, .ymin, .xmax, .ymax] { try box.encode("NaN", forKey: key) }
        }
        try box.encode(extent?.spatialReference ?? spatialReference, forKey: .spatialReference)
    }
}
