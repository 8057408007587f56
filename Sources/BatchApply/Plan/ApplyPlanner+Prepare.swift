package import FeatureModel
import FeatureServiceClient

/// One record checked against its layer and made into a planned edit: its keys read, its attributes fitted to the
/// layer for its kind, its geometry checked, its payload written.
extension ApplyPlanner {
    /// One record checked against its layer and made into a planned edit; `givenGlobalId` tells whether the record
    /// carried its GlobalID (rather than getting a derived one).
    func prepare(_ edit: InputEdit) -> Result<(edit: PlannedEdit, givenGlobalId: Bool, feature: Feature), InputProblem> {
        do throws(InputProblem) {
            return .success(try prepared(edit))
        } catch {
            return .failure(error)
        }
    }

    /// A record's keys, read from its attributes: the feature without them, and the objectId and (normalized)
    /// GlobalID it gave.
    struct RecordKeys {
        var feature: Feature
        var objectId: Int64?
        var globalId: String?
        /// Whether the record gave a GlobalID (not null).
        var givenGlobalId: Bool
    }

    private func prepared(_ edit: InputEdit) throws(InputProblem) -> (edit: PlannedEdit, givenGlobalId: Bool, feature: Feature) {
        let layerId = edit.layer ?? defaultLayer
        guard let layer = layers[layerId] else {
            throw edit.problem("layer \(layerId) is not in the service; layers are \(layers.keys.sorted().map(String.init).joined(separator: ", "))")
        }
        var keys = try readKeys(of: edit, layer: layer)
        try fit(&keys, edit: edit, layer: layer, layerId: layerId)
        var feature = keys.feature
        if edit.kind != .delete, layer.geometryType == nil { feature.geometry = nil }
        // The service refuses a geometry of another type than its layer's: said now, with the record, not by a
        // rejection once sent.
        if edit.kind != .delete, let expected = layer.geometryType, let given = feature.geometry?.geometryType, given != expected {
            throw edit.problem(
                "its geometry is \(Self.article(given)), and layer \(layerId) (\(layer.name)) takes \(Self.noun(expected))s. Fix: give it \(Self.article(expected)) geometry, or apply it to a layer of \(Self.noun(given))s"
            )
        }
        var payload = ""
        if edit.kind != .delete {
            var writer = JSONWriter(capacity: 256)
            writer.write(feature)
            payload = writer.string
        }
        let planned = PlannedEdit(
            position: edit.position, kind: edit.kind, layer: layerId, globalId: keys.globalId, objectId: keys.objectId, payload: payload,
            source: edit.source)
        return (planned, keys.givenGlobalId, feature)
    }

    /// The record's keys, taken out of its attributes (with attributes that name no field, under
    /// ``dropUnknownFields``).
    private func readKeys(of edit: InputEdit, layer: LayerInfo) throws(InputProblem) -> RecordKeys {
        let objectIdField = layer.objectIdField
        let globalIdField = layer.globalIdField
        var feature = edit.feature
        // Keys may be spelled as the reader wrote them (OBJECTID, GlobalID) or as the layer does. They travel outside
        // the attributes; most records (adds) have none, so look once before looking each up and copying.
        let keyNames = Self.keyNames(of: layer)
        func isKey(_ name: String) -> Bool { keyNames.contains { $0.caseInsensitiveEquals(name) } }
        var objectIdValue: JSONValue?
        var globalIdValue: JSONValue?
        if feature.attributes.keys.contains(where: isKey) {
            objectIdValue = feature[attribute: objectIdField] ?? feature[attribute: "OBJECTID"]
            globalIdValue = globalIdField.flatMap { feature[attribute: $0] } ?? feature[attribute: "GlobalID"]
            feature.attributes = feature.attributes.filter { !isKey($0.key) }
        }
        // Most records name only the layer's fields: look once before copying.
        if dropUnknownFields, feature.attributes.keys.contains(where: { layer.field(named: $0) == nil }) {
            feature.attributes = feature.attributes.filter { name, _ in layer.field(named: name) != nil }
        }
        var objectId: Int64?
        if let objectIdValue, !objectIdValue.isNull {
            guard let value = objectIdValue.intValue ?? objectIdValue.stringValue.flatMap({ Int64($0) }), value > 0 else {
                throw edit.problem("\(objectIdField) must be a positive whole number, got \(objectIdValue)")
            }
            objectId = value
        }
        var globalId: String?
        let givenGlobalId = globalIdValue.map { !$0.isNull } ?? false
        if let globalIdValue, givenGlobalId {
            guard let text = globalIdValue.stringValue, let normalized = GlobalID.normalized(text) else {
                throw edit.problem("\(globalIdField ?? "GlobalID") must be a GUID like {8-4-4-4-12 hex digits}, got \(globalIdValue)")
            }
            globalId = normalized
        }
        return RecordKeys(feature: feature, objectId: objectId, globalId: globalId, givenGlobalId: givenGlobalId)
    }

    /// Fits the record to its layer for its kind: an add gets its GlobalID (given or derived) and no objectId; an
    /// update is found by its objectId, else its GlobalID; a delete keeps only the key it is found by.
    private func fit(_ keys: inout RecordKeys, edit: InputEdit, layer: LayerInfo, layerId: Int) throws(InputProblem) {
        let objectIdField = layer.objectIdField
        let globalIdField = layer.globalIdField
        switch edit.kind {
        case .add:
            guard let globalIdField else {
                throw edit.problem(
                    "layer \(layerId) (\(layer.name)) has no GlobalID field, so an add cannot be applied exactly once: a retried request could add it twice. Fix: add a GlobalID field to the layer"
                )
            }
            keys.objectId = nil
            let id = keys.globalId ?? DerivedGlobalID.make(layer: layerId, position: edit.position.index, source: edit.source, scheme: globalIdScheme)
            keys.globalId = id
            let (converted, problems) = coerce(keys.feature, layer, .add)
            keys.feature = converted
            if let reason = Self.reason(problems) { throw edit.problem(reason) }
            keys.feature.attributes[globalIdField] = .string(id)
        case .update:
            guard keys.objectId != nil || (keys.globalId != nil && globalIdField != nil) else {
                throw edit.problem("an update needs the feature's \(objectIdField)\(globalIdField.map { " or \($0)" } ?? "") to find it by")
            }
            let (converted, problems) = coerce(keys.feature, layer, .update)
            keys.feature = converted
            if let reason = Self.reason(problems) { throw edit.problem(reason) }
            if let objectId = keys.objectId {
                keys.feature.attributes[objectIdField] = .int(objectId)
                keys.globalId = nil
            } else if let globalId = keys.globalId, let globalIdField {
                keys.feature.attributes[globalIdField] = .string(globalId)
            }
        case .delete:
            guard keys.objectId != nil || (keys.globalId != nil && globalIdField != nil) else {
                throw edit.problem("a delete needs the feature's \(objectIdField)\(globalIdField.map { " or \($0)" } ?? "") to find it by")
            }
            if keys.objectId != nil { keys.globalId = nil }
        }
    }

    /// The names an input may give `layer`'s keys: the layer's own, and the reader's (OBJECTID, GlobalID).
    package static func keyNames(of layer: LayerInfo) -> [String] {
        [layer.objectIdField, EsriJSONFeature.objectIdKey, layer.globalIdField ?? EsriJSONFeature.globalIdKey, EsriJSONFeature.globalIdKey]
    }

    /// How a geometry type is named to the user: point, multipoint, line, polygon, envelope.
    static func noun(_ type: GeometryType) -> String {
        switch type {
        case .point: "point"
        case .multipoint: "multipoint"
        case .polyline: "line"
        case .polygon: "polygon"
        case .envelope: "envelope"
        }
    }

    /// ``noun(_:)`` with its article.
    static func article(_ type: GeometryType) -> String {
        (type == .envelope ? "an " : "a ") + noun(type)
    }

    static func reason(_ problems: [String]) -> String? {
        problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
}
