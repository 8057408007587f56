import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Testing

@Suite struct FeatureServiceTests {
    @Test("load fetches service and layer metadata once and caches it", .timeLimit(.minutes(1)))
    func loadAndCache() async throws {
        let transport = InMemoryTransport { Fixtures.metadataHandler($0) }
        let service = FeatureService(url: Fixtures.serviceURL, transport: transport)

        let info = try await service.load()
        #expect(info.layers.map(\.id) == [0])
        #expect(info.tables.map(\.id) == [1])
        let requests = transport.requests
        #expect(requests.count == 3)
        #expect(requests.allSatisfy { $0.method == .get && $0.formValue("f") == "json" })
        #expect(
            Set(requests.map(\.path)) == [
                "/arcgis/rest/services/parks/FeatureServer", "/arcgis/rest/services/parks/FeatureServer/0",
                "/arcgis/rest/services/parks/FeatureServer/1",
            ])

        let parks = try await service.layerInfo(id: 0)
        #expect(parks.field(named: "CONDITION")?.domain?.name == "Condition")
        #expect(parks.relationship(id: 0)?.relatedTableId == 1)
        #expect(try await service.layerInfo(id: 1).isTable)
        #expect(try await service.info() == info)
        #expect(transport.requests.count == 3, "cached metadata must not be fetched again")
    }

    @Test("info loads on first use and layerInfo fetches a single layer on demand", .timeLimit(.minutes(1)))
    func lazyMetadata() async throws {
        let transport = InMemoryTransport { Fixtures.metadataHandler($0) }
        let service = FeatureService(url: Fixtures.serviceURL + "/", transport: transport)
        #expect(try await service.layerInfo(id: 0).name == "Parks")
        #expect(transport.requests.count == 1)
        #expect(try await service.layerInfo(id: 0).name == "Parks")
        #expect(transport.requests.count == 1)
        _ = try await service.info()
        #expect(transport.requests.count == 4)
        _ = try await service.info()
        #expect(transport.requests.count == 4)
    }

    @Test("a missing layer throws the ArcGIS error with its code", .timeLimit(.minutes(1)))
    func missingLayer() async throws {
        let service = FeatureService(url: Fixtures.serviceURL, transport: InMemoryTransport { Fixtures.metadataHandler($0) })
        let error = try await #require(throws: FeatureServiceError.self) { try await service.layerInfo(id: 7) }
        #expect(error.arcgisError?.code == 404)
        #expect(error.description.contains("layer 7 metadata"))
        #expect(error.description.contains("/FeatureServer/7"))
    }

    @Test("a failing layer makes load throw and cache nothing", .timeLimit(.minutes(1)))
    func loadFailure() async throws {
        let transport = InMemoryTransport { request in
            request.path.hasSuffix("/1")
                ? HTTPResponse.json("Bad gateway", status: 502, contentType: "text/plain") : Fixtures.metadataHandler(request)
        }
        let service = FeatureService(url: Fixtures.serviceURL, transport: transport)
        let error = try await #require(throws: FeatureServiceError.self) { try await service.load() }
        #expect(error.httpStatus == 502)
        transport.clearRequests()
        _ = try? await service.info()
        #expect(transport.requests.contains { $0.path == "/arcgis/rest/services/parks/FeatureServer" }, "nothing was cached")
    }

    @Test("layer(id:) builds a layer client under the service URL without a request")
    func layerClient() {
        let transport = InMemoryTransport { _ in .json("{}") }
        let service = FeatureService(url: Fixtures.serviceURL, transport: transport)
        #expect(service.layer(id: 3).url == Fixtures.serviceURL + "/3")
        #expect(transport.requests.isEmpty)
    }
}
