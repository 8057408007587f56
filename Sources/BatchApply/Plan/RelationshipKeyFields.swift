import FeatureModel
import Foundation

/// The one-to-one and one-to-many relationships between the layers of a plan: which field of a child holds which key
/// of its parent, by layer. Planning groups an add with the parent its key field names (the client's
/// `RelationshipLinks` is another thing: what is known about one feature's links in one relationship).
struct RelationshipKeyFields {
    struct Link {
        var parentLayer: Int
        /// The origin's key field (often its GlobalID).
        var parentField: String
        var childLayer: Int
        /// The destination's foreign-key field.
        var childField: String
    }

    private var asParent: [Int: [Link]] = [:]
    private var asChild: [Int: [Link]] = [:]

    /// No links: nothing is grouped by relationship.
    init() {}

    /// The links of `layers`' relationships whose both ends are among them. Many-to-many relationships are left out:
    /// their link rows live in a table of their own.
    init(_ layers: [Int: LayerInfo]) {
        for (id, layer) in layers {
            for relationship in layer.relationships ?? [] where relationship.role == .origin && relationship.cardinality != .manyToMany {
                guard let child = layers[relationship.relatedTableId],
                    let back = child.relationships?.first(where: { $0.id == relationship.id && $0.relatedTableId == id })
                else { continue }
                let link = Link(parentLayer: id, parentField: relationship.keyField, childLayer: child.id, childField: back.keyField)
                asParent[id, default: []].append(link)
                asChild[child.id, default: []].append(link)
            }
        }
    }

    /// The keys an add to `layer` offers its children.
    func parentKeys(of feature: Feature, layer: Int) -> [String] {
        (asParent[layer] ?? []).compactMap { link in Self.value(feature, link.parentField).map { Self.key(link, $0) } }
    }

    /// The keys of the parents an add to `layer` names.
    func childKeys(of feature: Feature, layer: Int) -> [String] {
        (asChild[layer] ?? []).compactMap { link in Self.value(feature, link.childField).map { Self.key(link, $0) } }
    }

    static func key(_ link: Link, _ value: String) -> String {
        "\(link.parentLayer)/\(link.parentField.lowercased())/\(value)"
    }

    /// A key value as text that compares equal however it was written: GlobalIDs in their canonical form, numbers
    /// as whole numbers.
    static func value(_ feature: Feature, _ field: String) -> String? {
        guard let value = feature[attribute: field], !value.isNull else { return nil }
        if let text = value.stringValue {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : GlobalID.normalized(trimmed) ?? trimmed
        }
        if let number = value.intValue { return String(number) }
        if let number = value.doubleValue, number == number.rounded() { return String(Int64(number)) }
        return nil
    }
}
