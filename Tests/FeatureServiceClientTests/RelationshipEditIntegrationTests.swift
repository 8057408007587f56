import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Testing

/// Create, update and delete links (one-to-one, one-to-many, many-to-many) through libcurl against the real local
/// service.
@Suite struct RelationshipEditIntegrationTests {
    static func one(_ table: ServiceFeatureTable, _ whereClause: String) async throws -> Feature {
        try #require(try await table.queryAllFeatures(QueryParameters(whereClause: whereClause, returnGeometry: false)).first)
    }

    @Test("swapping the partners of two one-to-one pairs is one atomic batch", .timeLimit(.minutes(1)))
    func swapOneToOne() async throws {
        try await withLocalService(dataset: "ownerscars") { service, _, _ in
            let owners = try await service.table(id: 0)
            let cars = try await service.table(id: 1)
            let volvo = try await Self.one(cars, "owner_id = 101")
            let ford = try await Self.one(cars, "owner_id = 102")
            let grace = try await Self.one(owners, "owner_id = 102")

            // Relating Ada's Volvo to Grace without unrelating it from Ada breaks one-to-one twice over.
            let doubled = try await cars.relate(volvo, to: grace, relationshipId: 0)
            let kinds = try await cars.validateRelationshipConstraints(for: doubled).map(\.kind)
            #expect(kinds == [.cardinality])
            await cars.discardEdits()

            let (newVolvo, newFord) = try await cars.swapPartners(volvo, ford, relationshipId: 0)
            #expect(try await cars.validateRelationshipConstraints(for: newVolvo).isEmpty)
            #expect(try await cars.validateRelationshipConstraints(for: newFord).isEmpty)
            #expect(await cars.pendingEdits.map(\.kind) == [.update, .update])
            let results = try await service.applyEdits(tables: [cars])
            #expect(results.map(\.isApplied) == [true, true])
            #expect(try await Self.one(cars, "plate = 'ADA-101'")[attribute: "owner_id"] == 102)
            #expect(try await Self.one(cars, "plate = 'GRH-102'")[attribute: "owner_id"] == 101)
            _ = owners
        }
    }

    @Test("many-to-many: relate adds a relationship-table row, unrelate deletes it", .timeLimit(.minutes(1)))
    func manyToMany() async throws {
        try await withLocalService(dataset: "supplierproducts") { service, _, _ in
            let suppliers = try await service.table(id: 0)
            let products = try await service.table(id: 1)
            let links = try await service.table(id: 2)
            let fabrikam = try await Self.one(suppliers, "company = 'Fabrikam Supply'")
            let supplierGlobalId = try #require(fabrikam.string("GlobalID"))
            let before = try await links.queryFeatureCount(QueryParameters(whereClause: "supplier_guid = '\(supplierGlobalId)'"))
            let related = try await suppliers.queryRelated(to: fabrikam, RelatedQueryParameters(relationshipId: 0))
            let relatedNames = Set(related.compactMap { $0.string("product_name") })
            let product = try #require(
                try await products.queryAllFeatures().first { !relatedNames.contains($0.string("product_name") ?? "") })

            try await products.relate(product, to: fabrikam, relationshipId: 0)
            #expect(await products.pendingEdits.map(\.tableId) == [2])
            #expect(try await products.validateRelationshipConstraints(for: product).isEmpty)
            #expect(try await products.applyEdits().allSatisfy { $0.isApplied })
            #expect(try await links.queryFeatureCount(QueryParameters(whereClause: "supplier_guid = '\(supplierGlobalId)'")) == before + 1)
            let afterRelate = try await suppliers.queryRelated(to: fabrikam, RelatedQueryParameters(relationshipId: 0))
            #expect(afterRelate.contains { $0.string("GlobalID") == product.string("GlobalID") })

            try await suppliers.unrelate(fabrikam, from: product, relationshipId: 0)
            #expect(await suppliers.pendingEdits.map(\.kind) == [.delete])
            #expect(try await suppliers.applyEdits().allSatisfy { $0.isApplied })
            #expect(try await links.queryFeatureCount(QueryParameters(whereClause: "supplier_guid = '\(supplierGlobalId)'")) == before)
            await #expect(throws: FeatureServiceError.self) { try await suppliers.unrelate(fabrikam, from: product, relationshipId: 0) }
        }
    }

    @Test("moving a comment to another request updates its key; unrelating a guest order nulls it", .timeLimit(.minutes(1)))
    func moveAndUnrelate() async throws {
        try await withLocalService(dataset: "servicerequests") { service, _, _ in
            let requests = try await service.table(id: 0)
            let comments = try await service.table(id: 1)
            let pothole = try await Self.one(requests, "request_type = 'Pothole'")
            let graffiti = try await Self.one(requests, "request_type = 'Graffiti'")
            let comment = try await Self.one(comments, "comment = 'Crew scheduled for Monday'")
            await #expect(throws: FeatureServiceError.self) { try await comments.move(comment, from: graffiti, to: pothole, relationshipId: 0) }
            try await comments.move(comment, from: pothole, to: graffiti, relationshipId: 0)
            #expect(try await comments.applyEdits().allSatisfy { $0.isApplied })
            let onGraffiti = try await requests.queryRelated(to: graffiti, RelatedQueryParameters(relationshipId: 0))
            let onPothole = try await requests.queryRelated(to: pothole, RelatedQueryParameters(relationshipId: 0))
            #expect(onGraffiti.contains { $0.string("comment") == "Crew scheduled for Monday" })
            #expect(!onPothole.contains { $0.string("comment") == "Crew scheduled for Monday" })
        }
        try await withLocalService(dataset: "customerorders") { service, _, _ in
            let customers = try await service.table(id: 0)
            let orders = try await service.table(id: 1)
            let order = try await Self.one(orders, "order_number = 'SO-1001'")
            let alfreds = try await Self.one(customers, "company = 'Alfreds Futterkiste'")
            let guest = try await orders.unrelate(order, from: alfreds, relationshipId: 0)
            #expect(guest[attribute: "customer_guid"] == .null)
            #expect(try await orders.validateRelationshipConstraints(for: guest).isEmpty)  // simple: an orphan is allowed
            #expect(try await orders.applyEdits().allSatisfy { $0.isApplied })
            #expect(try await Self.one(orders, "order_number = 'SO-1001'")[attribute: "customer_guid"] == .null)
        }
    }

    @Test("relationship validation against the service: orphaned, second park, dangling key", .timeLimit(.minutes(1)))
    func validationAgainstService() async throws {
        try await withLocalService(dataset: "parks") { service, _, _ in
            let parks = try await service.table(id: 0)
            let species = try await service.table(id: 1)
            let yosemite = try await Self.one(parks, "name = 'Yosemite'")
            let orphan = species.makeFeature(attributes: ["common_name": "Unplaced"])
            #expect(try await species.validateRelationshipConstraints(for: orphan).map(\.kind) == [.orphaned])

            let wolf = try await Self.one(species, "common_name = 'Gray Wolf'")
            let wandering = try await species.relate(wolf, to: yosemite, relationshipId: 0)
            #expect(try await species.validateRelationshipConstraints(for: wandering).map(\.kind) == [.cardinality])
            let moved = try await species.move(wolf, from: nil, to: yosemite, relationshipId: 0)
            #expect(try await species.validateRelationshipConstraints(for: moved).isEmpty)

            var dangling = orphan
            dangling.attributes["park_guid"] = "{00000000-0000-4000-8000-000000000000}"
            #expect(try await species.validateRelationshipConstraints(for: dangling).map(\.kind) == [.danglingKey])
            // The park's side: Yellowstone still has its other species, none of them dangling.
            let yellowstone = try await Self.one(parks, "name = 'Yellowstone'")
            #expect(try await parks.validateRelationshipConstraints(for: yellowstone, considering: [species]).isEmpty)
        }
    }
}
