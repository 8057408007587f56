import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Testing

/// CurlTransport and the feature-service client against the real LocalFeatureServer on 127.0.0.1, port 0.
@Suite struct CurlTransportIntegrationTests {
    @Test("service and layer metadata load over curl", .timeLimit(.minutes(1)))
    func metadata() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let service = FeatureService(url: server.serviceURL, transport: transport)
                let info = try await service.load()
                #expect(info.layers.map(\.id) == [0])
                #expect(info.tables.map(\.id) == [1])
                let parks = try await service.layerInfo(id: 0)
                #expect(parks.name == "National Parks")
                #expect(parks.geometryType == .point)
                #expect(parks.field(named: "name")?.isNullable == false)
                #expect(parks.field(named: "category")?.domain?.name == "ParkCategory")
                #expect(parks.relationship(id: 0)?.relatedTableId == 1)
                #expect(try await service.layerInfo(id: 1).isTable)
                let error = try await #require(throws: FeatureServiceError.self) { try await service.layerInfo(id: 42) }
                #expect(error.arcgisError != nil || error.httpStatus == 404, "\(error)")
            }
        }
    }

    @Test("queries by where, objectIds and outFields, counts and ids", .timeLimit(.minutes(1)))
    func queries() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let parks = FeatureService(url: server.serviceURL, transport: transport).layer(id: 0)
                let total = try await parks.count()
                #expect(total == 12)

                let california = try await parks.query(
                    FeatureQuery(whereClause: "state = 'CA'", outFields: ["OBJECTID", "name"], orderByFields: "name"))
                #expect(california.features.compactMap { $0[attribute: "name"]?.stringValue } == ["Muir Woods", "Yosemite"])
                #expect(california.features.allSatisfy { $0[attribute: "state"] == nil }, "only the requested fields")
                #expect(california.features.allSatisfy { $0.geometry != nil })

                let ids = try await parks.objectIds()
                #expect(ids.count == 12)
                #expect(Set(ids).count == 12)
                let chosen = Array(ids.sorted().prefix(3))
                let byIds = try await parks.query(FeatureQuery(objectIds: chosen, outFields: ["*"], returnGeometry: false))
                #expect(Set(byIds.features.compactMap { $0[attribute: "OBJECTID"]?.intValue }) == Set(chosen))
                #expect(byIds.features.allSatisfy { $0.geometry == nil })
                #expect(try await parks.count(where: "category = 1", objectIds: chosen) <= 3)
                #expect(try await parks.count(where: "visitors > 4000000") == 5)
                #expect(try await parks.objectIds(where: "state = 'WY'").count == 2)

                let invalid = try await #require(throws: FeatureServiceError.self) {
                    try await parks.query(FeatureQuery(whereClause: "name = (SELECT 1)"))
                }
                #expect(invalid.arcgisError?.code == 400)
            }
        }
    }

    @Test("applyEdits adds, updates and deletes rows", .timeLimit(.minutes(1)))
    func edits() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let parks = FeatureService(url: server.serviceURL, transport: transport).layer(id: 0)
                let added = try await parks.applyEdits(
                    LayerEdits(adds: [
                        Feature(attributes: ["name": "Arches", "state": "UT", "category": 1], geometry: .point(x: -109.59, y: 38.73)),
                        Feature(attributes: ["name": "Sequoia", "state": "CA", "category": 1], geometry: .point(x: -118.57, y: 36.49)),
                    ]))
                #expect(added.failures.isEmpty)
                let newIds = added.addResults.compactMap(\.objectId)
                #expect(newIds.count == 2)
                #expect(added.addResults.allSatisfy { $0.globalId.flatMap(GlobalID.normalized) != nil })
                #expect(try await parks.count() == 14)

                let updated = try await parks.applyEdits(
                    LayerEdits(updates: [Feature(attributes: ["OBJECTID": .int(newIds[0]), "name": "Arches NP", "visitors": 1_800_000])]))
                #expect(updated.updateResults.map(\.success) == [true])
                let row = try await parks.query(FeatureQuery(objectIds: [newIds[0]]))
                #expect(row.features.first?[attribute: "name"] == "Arches NP")
                #expect(row.features.first?[attribute: "visitors"] == 1_800_000)
                #expect(row.features.first?[attribute: "state"] == "UT", "fields not in the update keep their value")

                let deleted = try await parks.applyEdits(LayerEdits(deletes: newIds))
                #expect(deleted.deleteResults.map(\.success) == [true, true])
                #expect(try await parks.count() == 12)
            }
        }
    }

    @Test(
        "rollbackOnFailure=true with one bad edit throws and leaves nothing behind", .timeLimit(.minutes(1)),
        arguments: [
            Feature(attributes: ["name": nil, "state": "UT"], geometry: .point(x: 0, y: 0)),  // non-nullable field set to null
            Feature(attributes: ["name": "Too long a state", "state": "UTAH"], geometry: .point(x: 0, y: 0)),  // longer than length 2
            Feature(attributes: ["name": "Bad category", "category": 99], geometry: .point(x: 0, y: 0)),  // outside the coded-value domain
        ])
    func rollback(bad: Feature) async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let parks = FeatureService(url: server.serviceURL, transport: transport).layer(id: 0)
                let ids = try await parks.objectIds()
                let good = Feature(attributes: ["name": "Capitol Reef", "state": "UT", "category": 1], geometry: .point(x: -111.2, y: 38.3))
                let update = Feature(attributes: ["OBJECTID": .int(ids[0]), "name": "Renamed"])
                let error = try await #require(throws: FeatureServiceError.self) {
                    try await parks.applyEdits(LayerEdits(adds: [good, bad], updates: [update], deletes: [ids[1]]))
                }
                #expect(error.arcgisError != nil, "\(error)")
                #expect(error.operation == "applyEdits")
                #expect(try await parks.count() == 12)
                #expect(try await parks.count(where: "name = 'Capitol Reef' OR name = 'Renamed'") == 0)
                #expect(try await parks.objectIds() == ids)

                // Without rollback the good edit is applied and the bad one reported.
                let partial = try await parks.applyEdits(LayerEdits(adds: [good, bad]), options: ApplyEditsOptions(rollbackOnFailure: false))
                #expect(partial.addResults.map(\.success) == [true, false])
                #expect(partial.failures.count == 1)
                #expect(partial.failures.first?.error != nil)
                #expect(try await parks.count() == 13)
            }
        }
    }

    @Test("paging with resultOffset and resultRecordCount returns every row exactly once", .timeLimit(.minutes(1)), arguments: [1, 7, 30, 1000])
    func paging(pageSize: Int) async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let species = FeatureService(url: server.serviceURL, transport: transport).layer(id: 1)
                let expected = try await species.objectIds()
                #expect(expected.count == 30)
                let rows = try await species.queryAll(
                    FeatureQuery(outFields: ["OBJECTID", "common_name"], orderByFields: "OBJECTID"), pageSize: pageSize)
                let ids = rows.compactMap { $0[attribute: "OBJECTID"]?.intValue }
                #expect(ids.count == 30)
                #expect(ids == expected.sorted())
            }
        }
    }

    @Test("64 concurrent requests share at most 64 keep-alive connections", .timeLimit(.minutes(1)))
    func concurrentKeepAlive() async throws {
        try await withTestServer { server in
            try await withCurlTransport(configuration: CurlTransportConfiguration(maxConnections: 64)) { transport in
                let parks = FeatureService(url: server.serviceURL, transport: transport).layer(id: 0)
                for wave in 0..<3 {
                    let counts = try await withThrowingTaskGroup(of: Int.self, returning: [Int].self) { group in
                        for _ in 0..<64 { group.addTask { try await parks.count() } }
                        var counts: [Int] = []
                        for try await count in group { counts.append(count) }
                        return counts
                    }
                    #expect(counts == Array(repeating: 12, count: 64), "wave \(wave)")
                }
                let statistics = transport.statistics
                #expect(statistics.transfersCompleted == 192)
                #expect(statistics.connectionsOpened >= 1)
                #expect(statistics.connectionsOpened <= 64, "connections must be reused across waves, got \(statistics.connectionsOpened)")
            }
        }
    }

    @Test("responses carry timing and byte counts", .timeLimit(.minutes(1)))
    func timing() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let response = try await transport.send(HTTPRequest(url: server.serviceURL + "?f=json"))
                #expect(response.status == 200)
                #expect(response.header("content-type")?.contains("json") == true)
                let timing = try #require(response.timing)
                #expect(timing.total > .zero)
                #expect(timing.startTransfer <= timing.total)
                #expect(timing.connect <= timing.startTransfer)
                #expect(timing.newConnections == 1)
                #expect(timing.bytesReceived >= Int64(response.body.count) / 20, "compressed bodies may be smaller on the wire")
                let again = try await transport.send(HTTPRequest(url: server.serviceURL + "?f=json"))
                #expect(again.timing?.newConnections == 0)
                #expect(again.body.count == response.body.count, "the same document (key order may vary)")
            }
        }
    }

    @Test("after the server stops, its port refuses connections: couldNotConnect", .timeLimit(.minutes(1)))
    func serverGone() async throws {
        let url = try await withTestServer { server in server.serviceURL }
        try await withCurlTransport { transport in
            let error = try await #require(throws: FeatureServiceError.self) {
                try await FeatureService(url: url, transport: transport).load()
            }
            let transportError = try #require(error.transportError)
            #expect(transportError.kind == .couldNotConnect)
            #expect(!transportError.mayHaveBeenSent)
            #expect(error.description.contains("service metadata"))
        }
    }

    @Test("cancelling a batch of in-flight queries ends each with a result or CancellationError", .timeLimit(.minutes(1)))
    func cancelInFlight() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let species = FeatureService(url: server.serviceURL, transport: transport).layer(id: 1)
                enum Outcome: Sendable {
                    case done, cancelled
                    case failed(String)
                }
                let outcomes = await withTaskGroup(of: Outcome.self, returning: [Outcome].self) { group in
                    for _ in 0..<40 {
                        group.addTask {
                            do {
                                _ = try await species.query(FeatureQuery())
                                return .done
                            } catch is CancellationError {
                                return .cancelled
                            } catch {
                                return .failed(String(describing: error))
                            }
                        }
                    }
                    var outcomes: [Outcome] = []
                    if let first = await group.next() { outcomes.append(first) }
                    group.cancelAll()
                    for await outcome in group { outcomes.append(outcome) }
                    return outcomes
                }
                #expect(outcomes.count == 40)
                let failures = outcomes.compactMap { if case .failed(let text) = $0 { text } else { nil } }
                #expect(failures.isEmpty, "\(failures)")
                // The transport keeps working after cancellations.
                let count = try await species.count()
                #expect(count == 30)
            }
        }
    }
}
