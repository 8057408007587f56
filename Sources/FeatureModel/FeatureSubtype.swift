/// One entry of a layer's `types` array: a feature type (subtype) with its own domains and templates.
///
/// `id` is the value of the layer's `typeIdField` for features of this type (a number or a string).
public struct FeatureSubtype: Sendable, Hashable, Codable {
    /// The type code: the value of the layer's `typeIdField` for features of this type.
    public var id: JSONValue
    /// The type's name.
    public var name: String
    /// Domains that replace the field's own domain for features of this type, by field name.
    public var domains: [String: Domain]?
    /// Templates for new features of this type.
    public var templates: [FeatureTemplate]?

    package init(id: JSONValue, name: String, domains: [String: Domain]? = nil, templates: [FeatureTemplate]? = nil) {
        self.id = id
        self.name = name
        self.domains = domains
        self.templates = templates
    }

    /// The domain this type gives field `name` (compared case-insensitively), if it gives one.
    public func domain(of name: String) -> Domain? {
        domains?.first { $0.key.caseInsensitiveEquals(name) }?.value
    }
}

extension LayerInfo {
    /// The feature's subtype: the `types` entry whose id equals the feature's value of ``typeIdField`` (numbers
    /// compare by value, so `1` matches `1.0`).
    public func subtype(of feature: Feature) -> FeatureSubtype? {
        guard let typeIdField, let code = feature[attribute: typeIdField], !code.isNull else { return nil }
        return types?.first { type in
            if let a = type.id.doubleValue, let b = code.doubleValue { return a == b }
            return type.id == code
        }
    }
}
