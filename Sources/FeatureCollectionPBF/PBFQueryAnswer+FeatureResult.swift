import FeatureModel

/// A ``FeatureSet`` into the wire's FeatureResult: fields, then per feature its attributes in field order and its
/// geometry as vertex counts and grid integers.
extension PBFQueryAnswer {
    static func featureResult(_ set: FeatureSet) throws -> FeatureCollectionMessage.FeatureResult {
        var result = FeatureCollectionMessage.FeatureResult()
        result.objectIDFieldName = set.objectIdFieldName ?? ""
        if let objectId = set.objectIdFieldName {
            result.uniqueIDField.name = objectId
            result.uniqueIDField.isSystemMaintained = true
        }
        result.globalIDFieldName = set.globalIdFieldName ?? ""
        result.geometryType = PBFGeometry.wireType(set.geometryType)
        if let reference = set.spatialReference { result.spatialReference = PBFSpatialReference.message(reference) }
        result.exceededTransferLimit = set.exceededTransferLimit ?? false
        result.hasZ_p = false
        result.hasM_p = false
        let fields = set.fields ?? Self.fields(of: set.features)
        result.fields = fields.map(PBFField.message)

        var grid: PBFGrid?
        if set.geometryType != nil {
            let transform: QuantizationTransform
            if let given = set.transform {
                transform = given
            } else {
                let chosen = PBFGrid(features: set.features, spatialReference: set.spatialReference)
                grid = chosen
                transform = chosen.transform
            }
            result.transform = Self.transform(transform)
        }
        result.features = try set.features.map { feature in
            var message = FeatureCollectionMessage.Feature()
            message.attributes = fields.map { PBFValue.message(feature.attributes[$0.name] ?? .null, type: $0.type) }
            if let geometry = feature.geometry, set.geometryType != nil {
                if let wire = try PBFGeometry.message(grid.map { $0.quantize(geometry) } ?? geometry) { message.geometry = wire }
            }
            return message
        }
        return result
    }

    /// The fields of an answer that states none: its attribute names in order, as strings of unknown type.
    private static func fields(of features: [Feature]) -> [Field] {
        let names = Set(features.flatMap { $0.attributes.keys }).sorted()
        return names.map { Field(name: $0, type: .string) }
    }

    static func transform(_ transform: QuantizationTransform) -> FeatureCollectionMessage.Transform {
        var message = FeatureCollectionMessage.Transform()
        message.quantizeOriginPostion = transform.originPosition == .upperLeft ? .upperLeft : .lowerLeft
        let scale = transform.scale + [0, 0, 0, 0]
        let translate = transform.translate + [0, 0, 0, 0]
        message.scale.xScale = scale[0]
        message.scale.yScale = scale[1]
        message.scale.zScale = scale[2]
        message.scale.mScale = scale[3]
        message.translate.xTranslate = translate[0]
        message.translate.yTranslate = translate[1]
        message.translate.zTranslate = translate[2]
        message.translate.mTranslate = translate[3]
        return message
    }

    static func transform(_ message: FeatureCollectionMessage.Transform) -> QuantizationTransform {
        QuantizationTransform(
            originPosition: message.quantizeOriginPostion == .lowerLeft ? .lowerLeft : .upperLeft,
            scale: [message.scale.xScale, message.scale.yScale, message.scale.zScale, message.scale.mScale],
            translate: [message.translate.xTranslate, message.translate.yTranslate, message.translate.zTranslate, message.translate.mTranslate])
    }

    /// The wire's FeatureResult back into a ``FeatureSet``.
    static func featureSet(_ result: FeatureCollectionMessage.FeatureResult, coordinates: Coordinates) throws -> FeatureSet {
        let fields = result.fields.map(PBFField.value)
        let geometryType = PBFGeometry.modelType(result.geometryType)
        let transform = result.hasTransform ? Self.transform(result.transform) : nil
        let stride = 2 + (result.hasZ_p ? 1 : 0) + (result.hasM_p ? 1 : 0)
        let features = try result.features.map { message in
            var attributes: [String: JSONValue] = [:]
            for (field, value) in zip(fields, message.attributes) { attributes[field.name] = PBFValue.value(value) }
            var geometry: Geometry?
            if case .geometry(let wire) = message.compressedGeometry, let type = geometryType ?? PBFGeometry.modelType(wire.geometryType) {
                let grid = try PBFGeometry.value(wire, type: type, stride: stride)
                if coordinates == .real, let transform { geometry = PBFGeometry.real(grid, transform: transform) } else { geometry = grid }
            }
            return Feature(attributes: attributes, geometry: geometry)
        }
        let set = FeatureSet(
            objectIdFieldName: result.objectIDFieldName.isEmpty ? nil : result.objectIDFieldName,
            globalIdFieldName: result.globalIDFieldName.isEmpty ? nil : result.globalIDFieldName,
            geometryType: geometryType,
            spatialReference: result.hasSpatialReference ? PBFSpatialReference.value(result.spatialReference) : nil,
            fields: fields, features: features, exceededTransferLimit: result.exceededTransferLimit,
            transform: coordinates == .grid ? transform : nil)
        return set
    }
}
