package import FeatureModel

/// A relationship rule that a feature breaks, as the ArcGIS Maps SDKs define them, plus a dangling key.
///
/// An edit that breaks one is still sent (the service does not enforce cardinality); validation is for the caller.
public struct RelationshipConstraintViolation: Sendable, Hashable, CustomStringConvertible {
    /// Which rule is broken.
    public enum Kind: String, Sendable, Hashable {
        /// 1:1: the feature, or its partner, is related to more than one feature; 1:M: a destination is related to
        /// more than one origin.
        case cardinality
        /// A destination of a composite relationship is related to no origin (orphans of simple relationships are
        /// allowed).
        case orphaned
        /// The feature's key points at a partner that does not exist.
        case danglingKey
    }

    /// Which rule is broken.
    public var kind: Kind
    /// The relationship's id.
    public var relationshipId: Int
    /// The relationship's name.
    public var relationshipName: String
    /// What exactly is wrong, with the keys involved.
    public var detail: String

    /// A violation.
    package init(kind: Kind, relationshipId: Int, relationshipName: String, detail: String) {
        self.kind = kind
        self.relationshipId = relationshipId
        self.relationshipName = relationshipName
        self.detail = detail
    }

    /// The kind, the relationship and the detail, on one line.
    public var description: String { "\(kind) violation of relationship \(relationshipId) '\(relationshipName)': \(detail)" }
}

/// What is known about one feature's links in one relationship: the input of ``RelationshipValidator``.
package struct RelationshipLinks: Sendable, Hashable {
    /// One feature at the other end of a link.
    package struct Partner: Sendable, Hashable {
        /// The partner's key (an origin's primary key, or a destination's key in a many-to-many table).
        package var key: JSONValue
        /// Whether a feature with that key exists (in the service or among pending adds).
        package var exists: Bool
        /// How many features on the validated feature's side, that one included, are related to this partner.
        package var relatedOnThisSide: Int

        /// A partner.
        package init(key: JSONValue, exists: Bool = true, relatedOnThisSide: Int = 1) {
            self.key = key
            self.exists = exists
            self.relatedOnThisSide = relatedOnThisSide
        }
    }

    package var relationshipId: Int
    package var relationshipName: String
    package var cardinality: RelationshipCardinality
    package var composite: Bool
    /// The validated feature's role.
    package var role: RelationshipRole
    /// The features the validated feature is related to, each once; pending relates included, so a destination
    /// related to a second origin without being unrelated from the first has two.
    package var partners: [Partner]

    /// Links.
    package init(
        relationshipId: Int, relationshipName: String, cardinality: RelationshipCardinality, composite: Bool, role: RelationshipRole,
        partners: [Partner]
    ) {
        self.relationshipId = relationshipId
        self.relationshipName = relationshipName
        self.cardinality = cardinality
        self.composite = composite
        self.role = role
        self.partners = partners
    }
}

/// Decides relationship-constraint violations from what is known about a feature's links. Pure: no I/O.
///
/// | rule | violation |
/// |---|---|
/// | 1:1, either side | related to more than one feature, or to a partner already related to another feature: ``RelationshipConstraintViolation/Kind/cardinality`` |
/// | 1:M, destination | related to more than one origin: ``RelationshipConstraintViolation/Kind/cardinality`` |
/// | composite, destination | related to no origin: ``RelationshipConstraintViolation/Kind/orphaned`` |
/// | simple, destination | related to no origin: no violation |
/// | any | a partner key that matches no feature: ``RelationshipConstraintViolation/Kind/danglingKey`` |
package enum RelationshipValidator {
    /// The violations of one feature in one relationship, in the order of the table above.
    package static func violations(_ links: RelationshipLinks) -> [RelationshipConstraintViolation] {
        func violation(_ kind: RelationshipConstraintViolation.Kind, _ detail: String) -> RelationshipConstraintViolation {
            RelationshipConstraintViolation(
                kind: kind, relationshipId: links.relationshipId, relationshipName: links.relationshipName, detail: detail)
        }
        var found: [RelationshipConstraintViolation] = []
        let keys = links.partners.map(\.key.description).joined(separator: ", ")
        let side = links.role == .origin ? "origin" : "destination"
        switch links.cardinality {
        case .oneToOne:
            if links.partners.count > 1 {
                found.append(violation(.cardinality, "one-to-one, but the \(side) is related to \(links.partners.count) features (\(keys))"))
            } else if let shared = links.partners.first(where: { $0.relatedOnThisSide > 1 }) {
                found.append(
                    violation(.cardinality, "one-to-one, but \(shared.key) is already related to \(shared.relatedOnThisSide - 1) other \(side)(s)"))
            }
        case .oneToMany:
            if links.role == .destination && links.partners.count > 1 {
                found.append(violation(.cardinality, "one-to-many, but the destination is related to \(links.partners.count) origins (\(keys))"))
            }
        case .manyToMany:
            break
        }
        if links.role == .destination && links.composite && links.partners.isEmpty {
            found.append(violation(.orphaned, "the destination of a composite relationship is related to no origin"))
        }
        for partner in links.partners where !partner.exists {
            found.append(violation(.danglingKey, "the key \(partner.key) matches no feature"))
        }
        return found
    }
}
