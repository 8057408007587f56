import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Testing

@Suite struct FeatureLayerClientTests {
    let layerURL = Fixtures.serviceURL + "/0"

    @Test("query POSTs the form fields and decodes the feature set", .timeLimit(.minutes(1)))
    func query() async throws {
        let transport = InMemoryTransport { _ in .json(Fixtures.featureSet(ids: [1, 2], more: false)) }
        let layer = FeatureLayerClient(url: layerURL, transport: transport)
        let set = try await layer.query(FeatureQuery(whereClause: "NAME LIKE 'P%' AND A=1", outFields: ["OBJECTID", "NAME"]))
        #expect(set.features.map { $0[attribute: "OBJECTID"] } == [1, 2])
        #expect(set.exceededTransferLimit == false)

        let request = try #require(transport.requests.first)
        #expect(request.method == .post)
        #expect(request.url == layerURL + "/query")
        #expect(request.headers.contains(HTTPHeader("Content-Type", "application/x-www-form-urlencoded")))
        #expect(request.formValue("where") == "NAME LIKE 'P%' AND A=1")
        #expect(request.formValue("outFields") == "OBJECTID,NAME")
        #expect(request.formValue("f") == "json")
    }

    @Test("count and objectIds send returnCountOnly and returnIdsOnly", .timeLimit(.minutes(1)))
    func countAndIds() async throws {
        let transport = InMemoryTransport { request in
            if request.formValue("returnCountOnly") == "true" { return .json(#"{"count":42}"#) }
            return .json(#"{"objectIdFieldName":"OBJECTID","objectIds":[3,1,2]}"#)
        }
        let layer = FeatureLayerClient(url: layerURL, transport: transport)
        #expect(try await layer.count(where: "CONDITION = 1", objectIds: [1, 2, 3]) == 42)
        #expect(try await layer.objectIds() == [3, 1, 2])
        let requests = transport.requests
        #expect(requests[0].formValue("where") == "CONDITION = 1")
        #expect(requests[0].formValue("objectIds") == "1,2,3")
        #expect(requests[1].formValue("returnIdsOnly") == "true")
        #expect(requests[1].formValue("where") == "1=1")
    }

    @Test("an HTTP 200 answer with an error body throws the ArcGIS error", .timeLimit(.minutes(1)))
    func errorBody() async throws {
        let transport = InMemoryTransport { _ in
            .json(#"{"error":{"code":400,"message":"Unable to complete operation.","details":["'where' parameter is invalid"]}}"#)
        }
        let layer = FeatureLayerClient(url: layerURL + "?token=SECRET", transport: transport)
        let error = try await #require(throws: FeatureServiceError.self) { try await layer.query(FeatureQuery(whereClause: "x = (SELECT 1)")) }
        #expect(error.arcgisError?.code == 400)
        #expect(error.arcgisError?.details == ["'where' parameter is invalid"])
        #expect(error.httpStatus == nil)
        #expect(error.transportError == nil)
        #expect(error.operation == "query")
        #expect(error.url == layerURL + "/query")
        #expect(error.description.contains("ArcGIS error 400"))
        #expect(!error.description.contains("SECRET"))
        #expect(!error.description.contains("SELECT"), "the request body stays out of the message")
        #expect(transport.requests.first?.url == layerURL + "/query?token=SECRET", "the query string rides along")
    }

    @Test("a token error under HTTP 498 is reported as the ArcGIS error", .timeLimit(.minutes(1)))
    func tokenError() async throws {
        let transport = InMemoryTransport { _ in .json(#"{"error":{"code":498,"message":"Invalid token.","details":[]}}"#, status: 498) }
        let error = try await #require(throws: FeatureServiceError.self) { try await FeatureLayerClient(url: layerURL, transport: transport).count() }
        #expect(error.arcgisError?.code == 498)
        #expect(error.description.contains("token"))
    }

    @Test("applyEdits returns success:false items in failures instead of throwing", .timeLimit(.minutes(1)))
    func applyEditsPartialFailure() async throws {
        let transport = InMemoryTransport { _ in
            .json(
                #"""
                {"addResults":[{"objectId":10,"globalId":"{11111111-2222-4333-8444-555555555555}","success":true},
                               {"success":false,"error":{"code":1001,"description":"Field NAME is not nullable."}}],
                 "updateResults":[{"objectId":3,"success":true}],"deleteResults":[{"objectId":99,"success":false,"error":{"code":1011,"description":"Object is missing."}}]}
                """#)
        }
        let layer = FeatureLayerClient(url: layerURL, transport: transport)
        let edits = LayerEdits(
            adds: [Feature(attributes: ["NAME": "New"], geometry: .point(x: 1, y: 2)), Feature(attributes: ["NAME": nil])],
            updates: [Feature(attributes: ["OBJECTID": 3, "CONDITION": 2])], deletes: [99])
        let result = try await layer.applyEdits(edits, options: ApplyEditsOptions(rollbackOnFailure: false))
        #expect(result.addResults.first?.objectId == 10)
        #expect(result.failures.map { $0.error?.code } == [1001, 1011])

        let request = try #require(transport.requests.first)
        #expect(request.url == layerURL + "/applyEdits")
        #expect(request.formValue("rollbackOnFailure") == "false")
        #expect(request.formValue("deletes") == "99")
        let adds = try WireJSON.decode([Feature].self, from: try #require(request.formValue("adds")))
        #expect(adds == edits.adds)
    }

    @Test("a rolled-back applyEdits batch throws the error envelope with its extended code", .timeLimit(.minutes(1)))
    func applyEditsRollback() async throws {
        let transport = InMemoryTransport { _ in
            .json(
                #"{"error":{"code":400,"extendedCode":-2147207418,"message":"Unable to complete operation.","details":["Operation rolled back."]}}"#)
        }
        let layer = FeatureLayerClient(url: layerURL, transport: transport)
        let error = try await #require(throws: FeatureServiceError.self) {
            try await layer.applyEdits(LayerEdits(adds: [Feature(attributes: ["NAME": nil])]))
        }
        #expect(error.arcgisError?.extendedCode == -2_147_207_418)
        #expect(error.operation == "applyEdits")
        #expect(transport.requests.first?.formValue("rollbackOnFailure") == "true")
    }

    @Test("a body that is not JSON throws an undecodable-response error without the body", .timeLimit(.minutes(1)))
    func nonJSONBody() async throws {
        let transport = InMemoryTransport { _ in .json("<html><body>Proxy login SECRETPAGE</body></html>", contentType: "text/html") }
        let error = try await #require(throws: FeatureServiceError.self) {
            try await FeatureLayerClient(url: layerURL, transport: transport).query(FeatureQuery())
        }
        #expect(error.isUndecodableResponse)
        #expect(error.arcgisError == nil)
        #expect(error.description.contains("FeatureSet"))
        #expect(error.description.contains("48 bytes"))
        #expect(error.description.contains("text/html"))
        #expect(!error.description.contains("SECRETPAGE"))
    }

    @Test("JSON of the wrong shape names the missing key", .timeLimit(.minutes(1)))
    func wrongShape() async throws {
        let transport = InMemoryTransport { _ in .json(#"{"objectIds":[1]}"#) }
        let error = try await #require(throws: FeatureServiceError.self) {
            try await FeatureLayerClient(url: layerURL, transport: transport).objectIds()
        }
        #expect(error.isUndecodableResponse)
        #expect(error.description.contains("objectIdFieldName"))
    }

    @Test("a non-2xx status without an error body throws with the status", .timeLimit(.minutes(1)))
    func httpStatus() async throws {
        let transport = InMemoryTransport { _ in .json("upstream down", status: 503, contentType: "text/plain") }
        let error = try await #require(throws: FeatureServiceError.self) { try await FeatureLayerClient(url: layerURL, transport: transport).count() }
        #expect(error.httpStatus == 503)
        #expect(error.description.contains("HTTP 503"))
    }

    @Test("transport failures are wrapped and keep their classification", .timeLimit(.minutes(1)))
    func transportFailure() async throws {
        let transport = InMemoryTransport { request in
            throw TransportError(.couldNotConnect, url: request.url, curlCode: 7, message: "Connection refused")
        }
        let error = try await #require(throws: FeatureServiceError.self) {
            try await FeatureLayerClient(url: layerURL + "?token=T0K3N", transport: transport).count()
        }
        let transportError = try #require(error.transportError)
        #expect(transportError.isConnectionFailure)
        #expect(!transportError.mayHaveBeenSent)
        #expect(transportError.url == layerURL + "/query")
        #expect(!error.description.contains("T0K3N"))
        #expect(error.description.contains("Check that the service is running"))
    }

    @Test("cancellation passes through unwrapped", .timeLimit(.minutes(1)))
    func cancellationPassesThrough() async throws {
        let transport = InMemoryTransport { _ in throw CancellationError() }
        await #expect(throws: CancellationError.self) { try await FeatureLayerClient(url: layerURL, transport: transport).count() }
    }

    @Test("queryAll pages with resultOffset until exceededTransferLimit is false", .timeLimit(.minutes(1)))
    func paging() async throws {
        let total = 23
        let transport = InMemoryTransport { request in
            let offset = Int(request.formValue("resultOffset") ?? "0") ?? 0
            let count = Int(request.formValue("resultRecordCount") ?? "10") ?? 10
            let ids = (offset + 1)...min(total, offset + count)
            return .json(Fixtures.featureSet(ids: ids, more: offset + count < total))
        }
        let layer = FeatureLayerClient(url: layerURL, transport: transport)
        let features = try await layer.queryAll(FeatureQuery(orderByFields: "OBJECTID ASC"), pageSize: 10)
        #expect(features.compactMap { $0[attribute: "OBJECTID"]?.intValue } == (1...23).map(Int64.init))
        #expect(transport.requests.map { $0.formValue("resultOffset") } == ["0", "10", "20"])
        #expect(transport.requests.allSatisfy { $0.formValue("resultRecordCount") == "10" && $0.formValue("orderByFields") == "OBJECTID ASC" })
    }

    @Test("queryAll advances by the rows the service actually returned when it caps the page", .timeLimit(.minutes(1)))
    func pagingWithServerCap() async throws {
        let total = 7
        let transport = InMemoryTransport { request in
            let offset = Int(request.formValue("resultOffset") ?? "0") ?? 0
            let ids = (offset + 1)...min(total, offset + 3)  // server caps at 3, whatever was asked
            return .json(Fixtures.featureSet(ids: ids, more: offset + 3 < total))
        }
        let features = try await FeatureLayerClient(url: layerURL, transport: transport).queryAll(FeatureQuery(), pageSize: 100)
        #expect(features.count == 7)
        #expect(transport.requests.map { $0.formValue("resultOffset") } == ["0", "3", "6"])
    }

    @Test("queryAll stops with an error when the service claims more rows but sends none", .timeLimit(.minutes(1)))
    func pagingStuck() async throws {
        let transport = InMemoryTransport { _ in .json(Fixtures.featureSet(ids: [], more: true)) }
        let error = try await #require(throws: FeatureServiceError.self) {
            try await FeatureLayerClient(url: layerURL, transport: transport).queryAll(FeatureQuery())
        }
        #expect(error.description.contains("paging"))
        #expect(transport.requests.count == 1)
    }
}
