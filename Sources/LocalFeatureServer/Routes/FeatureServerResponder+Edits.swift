import FeatureModel
import Logging
import NIOCore

extension FeatureServerResponder {
    /// `…/FeatureServer/applyEdits`: `[{"id":0,"addResults":[…],"updateResults":[…],"deleteResults":[…]}, …]`, one
    /// element per layer entry of `edits`, from one transaction.
    /// - Throws: ``ServiceError`` (400 invalid parameters or rolled back); `DatabaseError`.
    func serviceApplyEdits(store: FeatureStore, parameters: RequestParameters) async throws -> ServerResponse {
        let batch = try ServiceEditBatch.parse(parameters)
        let results = try await store.applyEdits(service: batch)
        if parameters.wantsPrettyJSON { return Self.render(results, pretty: true) }
        var writer = JSONWriter(capacity: 64 + batch.layers.reduce(0) { $0 + $1.batch.count * 80 })
        writer.write(serviceResults: results)
        return ServerResponse(status: 200, body: ByteBuffer(bytes: writer.bytes))
    }

    /// `…/<id>/addFeatures` → `{"addResults":[…]}`, `updateFeatures` → `{"updateResults":[…]}`, `deleteFeatures` →
    /// `{"deleteResults":[…]}` (with `editMoment` when asked).
    /// - Throws: ``ServiceError`` (404 unknown layer, 400 invalid parameters or rolled back); `DatabaseError`.
    func editOperation(
        _ operation: FeatureServerRoute.EditOperation, store: FeatureStore, layerId: Int, parameters: RequestParameters
    ) async throws -> ServerResponse {
        guard let layer = store.schemas[layerId] else { throw ServiceError.notFound("Layer \(layerId) does not exist.") }
        let batch = try EditBatch.parse(operation, parameters, layer: layer) { error in
            logger.debug("rejected where clause", metadata: ["where": "\(parameters["where"] ?? "")", "reason": "\(error)"])
        }
        let result = try await store.applyEdits(layerId: layerId, batch: batch)
        let (results, key) =
            switch operation {
            case .addFeatures: (result.addResults, "addResults")
            case .updateFeatures: (result.updateResults, "updateResults")
            case .deleteFeatures: (result.deleteResults, "deleteResults")
            }
        var writer = JSONWriter(capacity: 32 + results.count * 80)
        writer.write(operationResults: results, key: key, editMoment: result.editMoment)
        return ServerResponse(status: 200, body: ByteBuffer(bytes: writer.bytes))
    }
}
