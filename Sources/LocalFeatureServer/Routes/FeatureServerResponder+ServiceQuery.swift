import FeatureModel
import Foundation
import Logging

extension FeatureServerResponder {
    /// `…/FeatureServer/query`: several layers in one request, each filtered by its `layerDefs` entry.
    ///
    /// Every layer is answered by the layer query (``LayerQuery``, ``LayerQueryResponse``) with the request's other
    /// parameters (`returnCountOnly`, `returnIdsOnly`, `returnGeometry`, `outSR`, `geometry`, paging, …) and the
    /// definition's `where` and `outFields` (default: the request's `outFields`, else `*`); a table ignores the
    /// geometry filter. The answer is `{"layers":[{"id":0,…the layer query's answer…},…]}`, so with
    /// `returnCountOnly=true` each entry is `{"id":0,"count":n}`, with `returnIdsOnly=true`
    /// `{"id":0,"objectIdFieldName":…,"objectIds":[…]}`. Without `layerDefs` every layer and table is queried.
    /// - Throws: ``ServiceError`` (400 for malformed `layerDefs`, an unknown layer or an invalid parameter of any
    ///   layer's query); `DatabaseError`; `CancellationError`.
    func serviceQuery(store: FeatureStore, parameters: RequestParameters) async throws -> ServerResponse {
        let definitions: LayerDefinitions
        if let text = parameters["layerDefs"] {
            definitions = try LayerDefinitions.parse(text)
        } else {
            definitions = LayerDefinitions.all(layerIds: store.definition.layers.map(\.info.id))
        }
        var layers: [JSONValue] = []
        for definition in definitions.definitions {
            guard let layer = store.schemas[definition.layerId] else {
                throw ServiceError.invalidParameter("layerDefs", reason: "layer \(definition.layerId) does not exist in this service")
            }
            var layerParameters = parameters
            var overrides = [
                FormField("where", definition.whereClause ?? "1=1"),
                FormField("outFields", definition.outFields ?? parameters["outFields"] ?? "*"),
            ]
            if case .none = layer.geometry { overrides.append(FormField("geometry", "")) }
            layerParameters.merge(overrides)
            let query = try LayerQuery.parse(layerParameters, layer: layer, limits: recordLimits(for: store)) { error in
                logger.debug("rejected layerDefs where clause", metadata: ["layer": "\(definition.layerId)", "reason": "\(error)"])
            }
            let answer = try await store.query(layerId: definition.layerId, query)
            let body = try LayerQueryResponse.body(answer, query: query, layer: layer)
            guard case .object(var members) = try JSONReader.parse(bytes: Array(JSONEncoder().encode(body))) else {
                throw ServiceError.internalError("layer \(definition.layerId)'s answer is not a JSON object")
            }
            members["id"] = .int(Int64(definition.layerId))
            layers.append(.object(members))
        }
        return Self.render(JSONValue.object(["layers": .array(layers)]), pretty: parameters.wantsPrettyJSON)
    }
}
