import FeatureModel
import FeatureServiceClient
import Testing

/// Relationship-constraint decisions on the datasets' cases, without I/O.
@Suite struct RelationshipValidatorTests {
    static let yellowstone: JSONValue = "{8C759A95-6118-444C-93B8-932EFAB06DF8}"
    static let yosemite: JSONValue = "{29752FC6-C09A-4D5D-9CCE-80B328D85268}"

    static func species(_ partners: [RelationshipLinks.Partner]) -> RelationshipLinks {
        RelationshipLinks(
            relationshipId: 0, relationshipName: "Park_Species", cardinality: .oneToMany, composite: true, role: .destination, partners: partners)
    }

    @Test("a species related to a second park is a cardinality violation of the one-to-many relationship")
    func speciesInTwoParks() {
        let violations = RelationshipValidator.violations(Self.species([.init(key: Self.yellowstone), .init(key: Self.yosemite)]))
        #expect(violations.map(\.kind) == [.cardinality])
        #expect(violations.first?.relationshipName == "Park_Species")
    }

    @Test("a species with no park in the composite relationship is orphaned")
    func orphanedSpecies() {
        #expect(RelationshipValidator.violations(Self.species([])).map(\.kind) == [.orphaned])
    }

    @Test("a comment with no request in the simple relationship is no violation")
    func simpleOrphan() {
        let links = RelationshipLinks(
            relationshipId: 0, relationshipName: "Request_Comments", cardinality: .oneToMany, composite: false, role: .destination, partners: [])
        #expect(RelationshipValidator.violations(links).isEmpty)
    }

    @Test("a species in one existing park breaks no rule")
    func validSpecies() {
        #expect(RelationshipValidator.violations(Self.species([.init(key: Self.yellowstone)])).isEmpty)
    }

    @Test("a species whose park key names no park has a dangling key")
    func danglingKey() {
        let violations = RelationshipValidator.violations(Self.species([.init(key: "{00000000-0000-4000-8000-000000000000}", exists: false)]))
        #expect(violations.map(\.kind) == [.danglingKey])
    }

    @Test("one-to-one: a car related to an owner who already has a car, or an owner with two cars, breaks cardinality")
    func oneToOne() {
        let car = RelationshipLinks(
            relationshipId: 0, relationshipName: "Owner_Car", cardinality: .oneToOne, composite: false, role: .destination,
            partners: [.init(key: 101, relatedOnThisSide: 2)])
        #expect(RelationshipValidator.violations(car).map(\.kind) == [.cardinality])
        let owner = RelationshipLinks(
            relationshipId: 0, relationshipName: "Owner_Car", cardinality: .oneToOne, composite: false, role: .origin,
            partners: [.init(key: "{0C67A2CB-603C-4616-87A2-2873705BDD12}"), .init(key: "{7E3B9A59-2875-42D0-B8CC-DE1E498E0B0D}")])
        #expect(RelationshipValidator.violations(owner).map(\.kind) == [.cardinality])
        var swapped = car
        swapped.partners = [.init(key: 102, relatedOnThisSide: 1)]
        #expect(RelationshipValidator.violations(swapped).isEmpty)
    }

    @Test("one-to-many origins and many-to-many links have no cardinality limit")
    func unlimited() {
        let park = RelationshipLinks(
            relationshipId: 0, relationshipName: "Park_Species", cardinality: .oneToMany, composite: true, role: .origin,
            partners: [.init(key: "a"), .init(key: "b"), .init(key: "c")])
        #expect(RelationshipValidator.violations(park).isEmpty)
        let product = RelationshipLinks(
            relationshipId: 0, relationshipName: "Supplier_Product", cardinality: .manyToMany, composite: false, role: .destination,
            partners: [.init(key: "a"), .init(key: "b")])
        #expect(RelationshipValidator.violations(product).isEmpty)
    }
}
