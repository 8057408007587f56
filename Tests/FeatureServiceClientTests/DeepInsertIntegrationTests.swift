import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Testing

/// Deep insert (a new park with new species in one service-level applyEdits) against the real local service.
@Suite struct DeepInsertIntegrationTests {
    /// A new park with `names.count` new species keyed to its client GlobalID, all pending.
    static func stage(
        _ parks: ServiceFeatureTable, _ species: ServiceFeatureTable, park name: String, species names: [String]
    ) async throws -> (park: Feature, children: [Feature]) {
        let park = await parks.add(
            parks.makeFeature(attributes: ["name": .string(name), "state": "NV", "category": 1], geometry: .point(x: -114.3, y: 38.9)))
        var children: [Feature] = []
        for common in names {
            let child = try await species.makeFeature(relatedTo: park, relationshipId: 0, attributes: ["common_name": .string(common)])
            children.append(await species.add(child))
        }
        return (park, children)
    }

    static func count(_ table: ServiceFeatureTable, _ whereClause: String) async throws -> Int {
        try await table.queryFeatureCount(QueryParameters(whereClause: whereClause))
    }

    @Test("a deep insert writes the park and its species in one call, keyed to the park's client GlobalID", .timeLimit(.minutes(1)))
    func deepInsert() async throws {
        try await withLocalService(dataset: "parks") { service, _, _ in
            let parks = try await service.table(id: 0)
            let species = try await service.table(id: 1)
            let (park, children) = try await Self.stage(parks, species, park: "Great Basin", species: ["Bristlecone Pine", "Pika", "Sage Grouse"])
            let parkGlobalId = try #require(park.string("GlobalID"))
            #expect(children.allSatisfy { $0.string("park_guid") == parkGlobalId })
            for child in children {
                #expect(try await species.validateRelationshipConstraints(for: child, considering: [parks]).isEmpty)
            }

            let results = try await service.applyEdits(tables: [parks, species])
            #expect(results.count == 4)
            #expect(results.allSatisfy { $0.isApplied })
            #expect(results.first?.globalId == parkGlobalId)
            #expect(await parks.hasLocalEdits == false)
            #expect(await species.hasLocalEdits == false)

            let stored = try #require(try await parks.queryAllFeatures(QueryParameters(whereClause: "GlobalID = '\(parkGlobalId)'")).first)
            let related = try await parks.queryRelated(to: stored, RelatedQueryParameters(relationshipId: 0, orderByFields: ["common_name"]))
            #expect(related.compactMap { $0.string("common_name") } == ["Bristlecone Pine", "Pika", "Sage Grouse"])
        }
    }

    @Test("a deep insert with one invalid child leaves neither parent nor children, and stays pending", .timeLimit(.minutes(1)))
    func rolledBackByInvalidChild() async throws {
        try await withLocalService(dataset: "parks") { service, _, _ in
            let parks = try await service.table(id: 0)
            let species = try await service.table(id: 1)
            let (park, children) = try await Self.stage(parks, species, park: "Lassen", species: ["Pika", "Marten"])
            var invalid = children[1]
            invalid.attributes["common_name"] = nil  // not nullable: code 1001 on the service
            try await species.update(invalid)
            #expect(species.validateDomains(for: invalid).map(\.kind) == [.nullNotAllowed])

            let results = try await service.applyEdits(tables: [parks, species])
            #expect(results.count == 3)
            #expect(results.allSatisfy { $0.status == .failed })
            #expect(results.first?.error?.code == 400)
            let parkGlobalId = try #require(park.string("GlobalID"))
            #expect(try await Self.count(parks, "name = 'Lassen'") == 0)
            #expect(try await Self.count(species, "park_guid = '\(parkGlobalId)'") == 0)
            let stillPending = await species.pendingEdits
            #expect(stillPending.count == 2)
            #expect(stillPending.allSatisfy { $0.lastError != nil })
        }
    }

    @Test("a deep insert under injected per-edit failures leaves nothing, and applies once the faults stop", .timeLimit(.minutes(1)))
    func rolledBackByInjectedFailure() async throws {
        try await withLocalService(dataset: "parks") { service, server, transport in
            let parks = try await service.table(id: 0)
            let species = try await service.table(id: 1)
            let (park, _) = try await Self.stage(parks, species, park: "Pinnacles", species: ["Condor", "Bat", "Newt"])
            let parkGlobalId = try #require(park.string("GlobalID"))
            try await setFaults(
                #"{"seed":3,"faults":[{"kind":"editFailure","rate":1,"path":"*/FeatureServer/applyEdits"}]}"#, server: server, transport: transport)

            let failed = try await service.applyEdits(tables: [parks, species])
            #expect(failed.count == 4)
            #expect(failed.allSatisfy { $0.status == .failed && $0.error != nil })
            #expect(try await Self.count(parks, "GlobalID = '\(parkGlobalId)'") == 0)
            #expect(try await Self.count(species, "park_guid = '\(parkGlobalId)'") == 0)
            #expect(await parks.pendingEdits.count == 1)
            #expect(await species.pendingEdits.count == 3)

            try await setFaults(#"{"faults":[]}"#, server: server, transport: transport)
            let applied = try await service.applyEdits(tables: [parks, species])
            #expect(applied.count == 4)
            #expect(applied.allSatisfy { $0.isApplied })
            #expect(try await Self.count(parks, "GlobalID = '\(parkGlobalId)'") == 1)
            #expect(try await Self.count(species, "park_guid = '\(parkGlobalId)'") == 3)
        }
    }
}
