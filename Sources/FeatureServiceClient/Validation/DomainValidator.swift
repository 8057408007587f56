public import FeatureModel

/// One attribute value that a layer's schema would reject: an unknown field, a null in a non-nullable field, a
/// code outside a coded-value domain, or a number outside a range domain.
public struct DomainViolation: Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the value.
    public enum Kind: Sendable, Hashable {
        /// The layer has no field of that name.
        case unknownField
        /// The field does not accept null.
        case nullNotAllowed
        /// The value is not one of the coded-value domain's codes.
        case notInCodedValues(domain: String)
        /// The value lies outside the range domain (or is not a number).
        case outOfRange(domain: String, minValue: Double, maxValue: Double)
    }

    /// The field, as the feature names it.
    public var field: String
    /// The offending value.
    public var value: JSONValue
    /// What is wrong.
    public var kind: Kind

    /// A violation.
    package init(field: String, value: JSONValue, kind: Kind) {
        self.field = field
        self.value = value
        self.kind = kind
    }

    /// The field, the value and the rule it breaks, as a sentence.
    public var description: String {
        switch kind {
        case .unknownField: "field '\(field)' does not exist"
        case .nullNotAllowed: "field '\(field)' does not accept null"
        case .notInCodedValues(let domain): "\(value) is not a code of domain '\(domain)' (field '\(field)')"
        case .outOfRange(let domain, let low, let high):
            "\(value) is outside \(Self.number(low))…\(Self.number(high)) of domain '\(domain)' (field '\(field)')"
        }
    }

    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// Checks attribute values against a layer's fields and domains before they are sent. Pure: no I/O.
///
/// The domain of a field is the one of the feature's subtype (`types[].domains`, chosen by the value of the layer's
/// `typeIdField`) when it names that field, otherwise the field's own. Fields the service assigns (object ID,
/// GlobalID) are not checked. An absent attribute is checked only for a new feature: a non-nullable, editable field
/// without a default value must then be present.
package enum DomainValidator {
    /// Every violation in `feature`'s attributes, in field-name order.
    /// - Parameters:
    ///   - feature: The feature to check.
    ///   - layer: The layer's metadata (fields, domains, subtypes).
    ///   - isNew: Whether the feature is to be added (then required fields must be present). Default false.
    /// - Returns: The violations, present attributes in name order, then missing required fields.
    package static func violations(of feature: Feature, in layer: LayerInfo, isNew: Bool = false) -> [DomainViolation] {
        let subtype = layer.subtype(of: feature)
        var found: [DomainViolation] = []
        // In the dictionary's order, then sorted by name below: at most one violation per attribute, so the same as
        // going through the attributes sorted, without sorting every feature.
        for (name, value) in feature.attributes {
            guard let field = layer.field(named: name) else {
                found.append(DomainViolation(field: name, value: value, kind: .unknownField))
                continue
            }
            if field.type == .oid || field.type == .globalID { continue }
            if value.isNull {
                if !field.isNullable { found.append(DomainViolation(field: name, value: value, kind: .nullNotAllowed)) }
                continue
            }
            let domain = subtype?.domain(of: field.name) ?? field.domain
            guard let domain, !domain.contains(value) else { continue }
            switch domain {
            case .codedValue(let domainName, _):
                found.append(DomainViolation(field: name, value: value, kind: .notInCodedValues(domain: domainName)))
            case .range(let domainName, let low, let high):
                found.append(DomainViolation(field: name, value: value, kind: .outOfRange(domain: domainName, minValue: low, maxValue: high)))
            }
        }
        if found.count > 1 { found.sort { $0.field < $1.field } }
        guard isNew else { return found }
        for field in layer.fields where field.type != .oid && field.type != .globalID && !field.isNullable && field.isEditable {
            if feature[attribute: field.name] == nil && (field.defaultValue ?? .null).isNull {
                found.append(DomainViolation(field: field.name, value: .null, kind: .nullNotAllowed))
            }
        }
        return found
    }
}
