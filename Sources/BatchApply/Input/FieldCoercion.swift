package import FeatureModel
import FeatureServiceClient
import Foundation

/// Fits a read feature's attributes to a layer's fields before it is sent. Pure: no I/O.
///
/// - Names are matched case-insensitively and rewritten to the layer's spelling; an attribute with no field is a
///   problem that lists the fields.
/// - Values are typed: strings that parse become integers, doubles or dates; integers out of range for
///   smallInteger/integer, fractions in integer fields, unparsable strings, over-long strings and malformed
///   GlobalIDs/GUIDs are problems naming the field and the value. Dates take epoch milliseconds or ISO-8601
///   (`2024-05-01`, `2024-05-01T12:30:00Z`, with an offset; no offset means UTC), see ``ISODate``.
/// - A coded-value domain also takes a coded value's name (any case) and writes its code.
/// - Adds lose the object-ID field (the service assigns it); updates keep it. Other non-editable fields
///   (editor tracking, `Shape__Area`) are dropped without a problem, except GlobalID, which adds may carry.
/// - Deletes keep only the object-ID and GlobalID fields; the reader's ``EsriJSONFeature/objectIdKey`` and
///   ``EsriJSONFeature/globalIdKey`` are mapped to the layer's own names.
/// - Then `DomainValidator` checks domains (by subtype), nullability and, for adds, required fields.
package enum FieldCoercion {
    /// The feature with attributes fitted to `layer`, and every problem found (empty when it can be sent).
    /// - Parameters:
    ///   - feature: the feature as read.
    ///   - kind: the edit kind.
    ///   - layer: the target layer's metadata.
    /// - Returns: the fitted feature (attributes with problems left out) and the problems, in attribute order.
    package static func coerce(_ feature: Feature, kind: InputEdit.Kind, layer: LayerInfo) -> (feature: Feature, problems: [String]) {
        let subtype = subtype(of: feature, in: layer)
        // The attributes' order decides only the order of problems (and which of two attributes naming one field is
        // kept, itself a problem): a record fitted without a problem in the dictionary's own order is fitted as it
        // would be in name order, so only a record with problems is fitted again, sorted.
        var (attributes, problems) = fit(feature.attributes, kind: kind, layer: layer, subtype: subtype)
        if !problems.isEmpty {
            (attributes, problems) = fit(feature.attributes.sorted(by: { $0.key < $1.key }), kind: kind, layer: layer, subtype: subtype)
        }
        let fitted = Feature(attributes: attributes, geometry: feature.geometry)
        if kind != .delete {
            for violation in DomainValidator.violations(of: fitted, in: layer, isNew: kind == .add) where violation.kind != .unknownField {
                problems.append(violation.description)
            }
        }
        return (fitted, problems)
    }

    /// Each attribute fitted to its field, in the order given; the problems in that order.
    private static func fit(
        _ given: some Sequence<(key: String, value: JSONValue)>, kind: InputEdit.Kind, layer: LayerInfo, subtype: FeatureSubtype?
    ) -> (attributes: [String: JSONValue], problems: [String]) {
        var attributes: [String: JSONValue] = [:]
        var problems: [String] = []
        for (name, value) in given {
            guard let field = field(named: name, kind: kind, in: layer) else {
                let names = layer.fields.map(\.name).joined(separator: ", ")
                problems.append("no field '\(name)' in the layer; fields are \(names)")
                continue
            }
            let isKey = field.type == .oid || field.type == .globalID
            if kind == .delete && !isKey { continue }
            if kind == .add && field.type == .oid { continue }
            if !field.isEditable && !isKey { continue }
            if attributes[field.name] != nil {
                problems.append("two attributes name field '\(field.name)' (they differ only in case)")
                continue
            }
            var input = value
            let domain = subtype?.domain(of: field.name) ?? field.domain
            if case .codedValue(_, let codes)? = domain, let code = code(named: value, in: codes) { input = code }
            switch coerce(input, to: field) {
            case .success(let typed): attributes[field.name] = typed
            case .failure(let problem): problems.append(problem.reason)
            }
        }
        return (attributes, problems)
    }

    /// ``coerce(_:kind:layer:)`` for a bare field list (no subtypes); the object-ID and GlobalID fields are the
    /// fields of those types.
    package static func coerce(_ feature: Feature, fields: [Field], kind: InputEdit.Kind) -> (feature: Feature, problems: [String]) {
        let layer = LayerInfo(
            id: 0, name: "layer", type: "Feature Layer", geometryType: nil,
            objectIdField: fields.first { $0.type == .oid }?.name ?? EsriJSONFeature.objectIdKey,
            globalIdField: fields.first { $0.type == .globalID }?.name, fields: fields)
        return coerce(feature, kind: kind, layer: layer)
    }

    /// The layer's field for attribute `name`; for deletes the reader's generic key names map to the layer's.
    static func field(named name: String, kind: InputEdit.Kind, in layer: LayerInfo) -> Field? {
        if let field = layer.field(named: name) { return field }
        guard kind == .delete else { return nil }
        if name == EsriJSONFeature.objectIdKey { return layer.field(named: layer.objectIdField) }
        if name == EsriJSONFeature.globalIdKey, let globalID = layer.globalIdField { return layer.field(named: globalID) }
        return nil
    }

    /// The feature's subtype: the layer's type whose id is the value of ``LayerInfo/typeIdField``, compared loosely
    /// (a CSV gives the code as text before it is typed).
    static func subtype(of feature: Feature, in layer: LayerInfo) -> FeatureSubtype? {
        guard let typeField = layer.typeIdField, let code = feature[attribute: typeField], !code.isNull else { return nil }
        return layer.types?.first { looselyEqual($0.id, code) }
    }

    /// The code whose name `value` spells (any case), when `value` is a string that is not itself a code.
    static func code(named value: JSONValue, in codes: [CodedValue]) -> JSONValue? {
        guard let text = value.stringValue else { return nil }
        if codes.contains(where: { looselyEqual($0.code, value) }) { return nil }
        let wanted = text.trimmingCharacters(in: .whitespaces).lowercased()
        return codes.first { $0.name.lowercased() == wanted }?.code
    }

    /// Equality of a code and an input value, numbers compared by value whether written as numbers or text.
    static func looselyEqual(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if a == b { return true }
        let numberA = a.doubleValue ?? a.stringValue.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        let numberB = b.doubleValue ?? b.stringValue.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        if let numberA, let numberB { return numberA == numberB }
        return false
    }
}
