import FeatureModel

extension ServiceEditBatch {
    /// Reads a service-level applyEdits request.
    ///
    /// `edits`: a JSON array of `{"id": <layer>, "adds": […], "updates": […], "deletes": […]}` (each member
    /// optional; `deletes` as in the layer-level form); `rollbackOnFailure` (default true), `useGlobalIds` (default
    /// false), `returnEditMoment` (default false); each layer's `attachments` as ``AttachmentEdits``. Other parameters are
    /// ignored.
    /// - Throws: ``ServiceError`` (400) naming the invalid part, e.g. `edits[1].adds`.
    static func parse(_ parameters: RequestParameters) throws(ServiceError) -> ServiceEditBatch {
        var batch = ServiceEditBatch()
        batch.rollbackOnFailure = try parameters.bool("rollbackOnFailure", default: true)
        batch.useGlobalIds = try parameters.bool("useGlobalIds", default: false)
        batch.returnEditMoment = try parameters.bool("returnEditMoment", default: false)
        guard let text = parameters["edits"] else { return batch }
        let json: JSONValue
        do {
            json = try JSONReader.parse(text)
        } catch {
            throw ServiceError.invalidParameter("edits", reason: "not valid JSON: \(error)")
        }
        guard case .array(let items) = json else { throw ServiceError.invalidParameter("edits", reason: "expected a JSON array of layer edits") }
        for (index, item) in items.enumerated() {
            guard case .object(let members) = item, let id = members["id"]?.intValue, let layerId = Int(exactly: id) else {
                throw ServiceError.invalidParameter("edits", reason: "element \(index) is not an object with a layer 'id'")
            }
            var layer = EditBatch()
            if let adds = members["adds"], !adds.isNull { layer.adds = try EditBatch.features(json: adds, parameter: "edits[\(index)].adds") }
            if let updates = members["updates"], !updates.isNull {
                layer.updates = try EditBatch.features(json: updates, parameter: "edits[\(index)].updates")
            }
            if let deletes = members["deletes"], !deletes.isNull {
                layer.deletes = try EditBatch.deletes(json: deletes, useGlobalIds: batch.useGlobalIds, parameter: "edits[\(index)].deletes")
            }
            if let attachments = members["attachments"], !attachments.isNull {
                layer.attachments = try AttachmentEdits.parse(json: attachments, parameter: "edits[\(index)].attachments")
            }
            batch.layers.append(ServiceEditBatch.LayerBatch(layerId: layerId, batch: layer))
        }
        return batch
    }
}
