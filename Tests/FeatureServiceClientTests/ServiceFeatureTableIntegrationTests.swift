import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Testing

/// Pending edits in parallel batches, paged queries, related queries, the per-operation endpoints and contingent
/// values, through libcurl against the real local service.
@Suite struct ServiceFeatureTableIntegrationTests {
    @Test("applyEdits sends pending edits in parallel batches; failed edits stay pending with their error", .timeLimit(.minutes(1)))
    func parallelBatches() async throws {
        try await withLocalService(dataset: "parks") { service, _, _ in
            let parks = try await service.table(id: 0)
            for index in 0..<250 {
                let name: JSONValue = index % 100 == 7 ? .null : .string("Batch park \(index)")  // 7, 107, 207 break NOT NULL
                await parks.add(parks.makeFeature(attributes: ["name": name, "state": "OR"], geometry: .point(x: -120, y: 44)))
            }
            let results = try await parks.applyEdits(batchSize: 40, concurrency: 4)
            #expect(results.count == 250)
            #expect(results.filter { $0.isApplied }.count == 247)
            let failures = results.filter { !$0.isApplied }
            #expect(failures.compactMap(\.error?.code) == [1001, 1001, 1001])
            #expect(try await parks.queryFeatureCount(QueryParameters(whereClause: "name LIKE 'Batch park %'")) == 247)
            let left = await parks.pendingEdits
            #expect(left.count == 3)
            #expect(left.allSatisfy { $0.kind == .add && $0.lastError?.code == 1001 })

            for edit in left {
                var fixed = edit.feature
                fixed.attributes["name"] = "Batch park fixed"
                try await parks.update(fixed)
            }
            #expect(try await parks.applyEdits(batchSize: 1, concurrency: 2).allSatisfy { $0.isApplied })
            #expect(await parks.hasLocalEdits == false)
            #expect(try await parks.queryFeatureCount(QueryParameters(whereClause: "name = 'Batch park fixed'")) == 3)
        }
    }

    @Test("updates and deletes apply by key; a pending add that is deleted is never sent", .timeLimit(.minutes(1)))
    func updatesAndDeletes() async throws {
        try await withLocalService(dataset: "parks") { service, _, _ in
            let parks = try await service.table(id: 0)
            var zion = try #require(try await parks.queryAllFeatures(QueryParameters(whereClause: "name = 'Zion'")).first)
            zion.attributes["visitors"] = 5_000_000
            try await parks.update(zion)
            let acadia = try #require(try await parks.queryAllFeatures(QueryParameters(whereClause: "name = 'Acadia'")).first)
            try await parks.delete(acadia)
            let draft = await parks.add(parks.makeFeature(attributes: ["name": "Draft"]))
            try await parks.delete(draft)
            #expect(await parks.pendingEdits.map(\.kind) == [.update, .delete])
            let results = try await parks.applyEdits()
            #expect(results.map(\.kind) == [.update, .delete])
            #expect(results.allSatisfy { $0.isApplied })
            #expect(try await parks.queryAllFeatures(QueryParameters(whereClause: "name = 'Zion'")).first?[attribute: "visitors"] == 5_000_000)
            #expect(try await parks.queryFeatureCount(QueryParameters(whereClause: "name IN ('Acadia', 'Draft')")) == 0)
        }
    }

    @Test("queries page as an AsyncSequence, and count, ids, extent and statistics use the same filters", .timeLimit(.minutes(1)))
    func queries() async throws {
        try await withLocalService(dataset: "parks") { service, _, _ in
            let parks = try await service.table(id: 0)
            let paged = QueryParameters(outFields: ["OBJECTID", "name"], returnGeometry: false, orderByFields: ["OBJECTID"], resultRecordCount: 5)
            var sizes: [Int] = []
            for try await page in parks.queryPages(paged) { sizes.append(page.features.count) }
            #expect(sizes == [5, 5, 2])
            var names: [String] = []
            for try await feature in parks.queryFeatures(paged) { names.append(feature.string("name") ?? "") }
            #expect(names.count == 12)
            #expect(names.first == "Yellowstone")

            let california = QueryParameters(whereClause: "state = 'CA'")
            #expect(try await parks.queryFeatureCount(california) == 2)
            #expect(try await parks.queryObjectIds(QueryParameters(whereClause: "state = 'CA'", orderByFields: ["name"])).count == 2)
            let west = QueryParameters(envelope: Extent(xmin: -125, ymin: 30, xmax: -110, ymax: 50, spatialReference: SpatialReference(wkid: 4326)))
            let western = try await parks.queryAllFeatures(west).compactMap { $0.string("name") }
            #expect(Set(western) == ["Yosemite", "Muir Woods", "Zion", "Grand Canyon", "Yellowstone"])
            let extent = try await parks.queryExtent(california)
            #expect(extent.count == 2)
            #expect(extent.extent.map { $0.xmin < -122 && $0.xmax > -120 } == true)
            let perState = try await parks.queryStatistics(
                [.init("count", of: "OBJECTID", as: "parks")], groupBy: ["state"], QueryParameters(orderByFields: ["state"]))
            #expect(perState.first { $0.string("state") == "WY" }?[attribute: "parks"] == 2)
            let distinct = try await parks.queryFeatureCount(QueryParameters(outFields: ["state"], returnDistinctValues: true))
            #expect(distinct == 9)
        }
    }

    @Test("queryRelated pages across source features and counts; deleteFeatures(where:) cascades the composite relationship", .timeLimit(.minutes(1)))
    func relatedAndDeleteWhere() async throws {
        try await withLocalService(dataset: "parks") { service, _, _ in
            let parks = try await service.table(id: 0)
            let species = try await service.table(id: 1)
            let all = try await parks.queryObjectIds()
            let total = try await species.queryFeatureCount()
            let related = try await parks.queryRelated(
                objectIds: all, RelatedQueryParameters(relationshipId: 0, outFields: ["common_name"], orderByFields: ["common_name"], pageSize: 4))
            #expect(related.reduce(0) { $0 + $1.features.count } == total)
            #expect(Set(related.map(\.objectId)).count == related.count)
            let yellowstone = try await parks.queryObjectIds(QueryParameters(whereClause: "name = 'Yellowstone'"))
            let counts = try await parks.queryRelatedCounts(objectIds: yellowstone, RelatedQueryParameters(relationshipId: 0))
            #expect(counts[yellowstone[0]] == 4)

            let deleted = try await parks.deleteFeatures(where: "name = 'Yellowstone'")
            #expect(deleted.map(\.success) == [true])
            #expect(try await species.queryFeatureCount() == total - 4)
            await #expect(throws: FeatureServiceError.self) { try await parks.deleteFeatures(where: "name = (SELECT 1)") }
        }
    }

    @Test("addFeatures, updateFeatures and deleteFeatures(objectIds:) go straight to the service", .timeLimit(.minutes(1)))
    func editOperations() async throws {
        try await withLocalService(dataset: "customerorders") { service, _, _ in
            let orders = try await service.table(id: 1)
            let order = orders.makeFeature(attributes: ["order_number": "SO-2001", "total": 42.5])
            #expect(order[attribute: "status"] == "Pending")  // the field's default
            let added = try await orders.addFeatures([order])
            let objectId = try #require(added.first?.objectId)
            #expect(added.first?.globalId.flatMap(GlobalID.normalized) == order.string("GlobalID"))
            let updated = try await orders.updateFeatures([Feature(attributes: ["OBJECTID": .int(objectId), "status": "Shipped"])])
            #expect(updated.map(\.success) == [true])
            #expect(try await orders.queryFeatureCount(QueryParameters(whereClause: "status = 'Shipped' AND order_number = 'SO-2001'")) == 1)
            #expect(try await orders.deleteFeatures(objectIds: [objectId]).map(\.success) == [true])
            #expect(await orders.hasLocalEdits == false)
        }
    }

    @Test("contingent values are read from the layer resource: template nest valid, wrong buffer an error", .timeLimit(.minutes(1)))
    func contingentValues() async throws {
        try await withLocalService(dataset: "birdnests") { service, _, _ in
            let nests = try await service.table(id: 0)
            let template = try #require(nests.templates.first { $0.name == "Active eagle nest" })
            var nest = nests.makeFeature(template: template, geometry: .point(x: -122.5, y: 45.5))
            #expect(nest[attribute: "status"] == "Active")
            #expect(try await nests.validateContingencyConstraints(for: nest).isEmpty)
            let buffers = try await nests.contingentValues(for: nest, field: "buffer_m")
            #expect(buffers.byFieldGroup["protection_buffer"] == [.range(minValue: 300, maxValue: 1000)])

            nest.attributes["buffer_m"] = 50
            let violations = try await nests.validateContingencyConstraints(for: nest)
            #expect(violations.map(\.fieldGroup) == ["protection_buffer"])
            #expect(violations.map(\.severity) == [.error])
            nest.attributes["buffer_m"] = 5000
            #expect(nests.validateDomains(for: nest).map(\.field) == ["buffer_m"])
        }
    }
}
