import FeatureModel

/// Fields between ``Field`` and the wire's Field: name, type, alias, domain and default value (both as JSON text).
enum PBFField {
    /// Every `esriFieldType…` of the specification, by its wire value.
    private static let types: [(FieldType, FeatureCollectionMessage.FieldType)] = [
        (.smallInteger, .esriFieldTypeSmallInteger), (.integer, .esriFieldTypeInteger), (.single, .esriFieldTypeSingle),
        (.double, .esriFieldTypeDouble), (.string, .esriFieldTypeString), (.date, .esriFieldTypeDate), (.oid, .esriFieldTypeOid),
        (.geometry, .esriFieldTypeGeometry), (FieldType(rawValue: "esriFieldTypeBlob"), .esriFieldTypeBlob),
        (FieldType(rawValue: "esriFieldTypeRaster"), .esriFieldTypeRaster), (.guid, .esriFieldTypeGuid), (.globalID, .esriFieldTypeGlobalID),
        (FieldType(rawValue: "esriFieldTypeXML"), .esriFieldTypeXml), (.bigInteger, .esriFieldTypeBigInteger),
        (FieldType(rawValue: "esriFieldTypeDateOnly"), .esriFieldTypeDateOnly),
        (FieldType(rawValue: "esriFieldTypeTimeOnly"), .esriFieldTypeTimeOnly),
        (FieldType(rawValue: "esriFieldTypeTimestampOffset"), .esriFieldTypeTimestampOffset),
    ]
    private static let wire = Dictionary(types.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
    private static let model = Dictionary(types.map { ($0.1, $0.0) }, uniquingKeysWith: { first, _ in first })

    /// The wire type of `type`; a type the specification does not name travels as a string field.
    static func wireType(_ type: FieldType) -> FeatureCollectionMessage.FieldType { wire[type] ?? .esriFieldTypeString }

    static func message(_ field: Field) -> FeatureCollectionMessage.Field {
        var message = FeatureCollectionMessage.Field()
        message.name = field.name
        message.fieldType = wireType(field.type)
        message.alias = field.alias ?? ""
        if let domain = field.domain, let text = try? WireJSON.string(domain) { message.domain = text }
        if let value = field.defaultValue, value != .null, let text = try? WireJSON.string(value) { message.defaultValue = text }
        return message
    }

    static func value(_ message: FeatureCollectionMessage.Field) -> Field {
        var field = Field(
            name: message.name, type: model[message.fieldType] ?? .string, alias: message.alias.isEmpty ? nil : message.alias,
            nullable: nil, editable: nil)
        if !message.domain.isEmpty { field.domain = try? WireJSON.decode(Domain.self, from: message.domain) }
        if !message.defaultValue.isEmpty { field.defaultValue = try? JSONReader.parse(message.defaultValue) }
        return field
    }
}
