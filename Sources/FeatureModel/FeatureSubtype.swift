/// One entry of a layer's `types` array: a feature type (subtype) with its own domains and templates.
///
/// `id` is the value of the layer's `typeIdField` for features of this type (a number or a string).
public struct FeatureSubtype: Sendable, Hashable, Codable {
    public var id: JSONValue
    public var name: String
    /// Domains that replace the field's own domain for features of this type, by field name.
    public var domains: [String: Domain]?
    public var templates: [FeatureTemplate]?

    public init(id: JSONValue, name: String, domains: [String: Domain]? = nil, templates: [FeatureTemplate]? = nil) {
        self.id = id
        self.name = name
        self.domains = domains
        self.templates = templates
    }
}
