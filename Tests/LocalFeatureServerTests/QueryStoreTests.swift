import FeatureModel
import NIOCore
import Testing

@testable import LocalFeatureServer

@Suite struct QueryStoreTests {
    @Test("count honours where and objectIds and ignores paging", .timeLimit(.minutes(1)))
    func count() async throws {
        try await withStore { store in
            let all = try await store.answer(
                layerId: 0,
                [FormField("returnCountOnly", "true"), FormField("resultRecordCount", "1"), FormField("resultOffset", "5")]
            )
            #expect(all == .count(12))
            let monuments = try await store.answer(layerId: 0, [FormField("where", "category = 2"), FormField("returnCountOnly", "TRUE")])
            #expect(monuments == .count(2))
            let ids = try await store.answer(layerId: 0, [FormField("objectIds", "1,2,99"), FormField("returnCountOnly", "True")])
            #expect(ids == .count(2))
            let both = try await store.answer(
                layerId: 0,
                [
                    FormField("objectIds", "1,10,11"), FormField("where", "category = 2"), FormField("returnCountOnly", "true"),
                    FormField("returnIdsOnly", "true"),
                ]
            )
            #expect(both == .count(2))
        }
    }

    @Test("returnIdsOnly is not capped by maxRecordCount and follows orderByFields", .timeLimit(.minutes(1)))
    func objectIds() async throws {
        try await withStore { store in
            let ids = try await store.answer(layerId: 1, [FormField("returnIdsOnly", "true")], maxRecordCount: 5)
            #expect(ids == .objectIds(Array(1...30)))
            let ordered = try await store.answer(
                layerId: 0,
                [FormField("returnIdsOnly", "true"), FormField("where", "category > 1"), FormField("orderByFields", "name DESC")]
            )
            #expect(ordered == .objectIds([11, 10, 12]))  // Muir Woods, Devils Tower, Big Cypress
        }
    }

    struct Page: Equatable {
        var objectIds: [Int64]
        var exceededTransferLimit: Bool
        init(_ objectIds: [Int64], _ exceededTransferLimit: Bool) {
            self.objectIds = objectIds
            self.exceededTransferLimit = exceededTransferLimit
        }
    }

    @Test("paging sets exceededTransferLimit exactly when more rows follow", .timeLimit(.minutes(1)))
    func paging() async throws {
        try await withStore { store in
            func page(_ offset: Int, _ count: Int?, max: Int = 2000) async throws -> Page {
                var fields = [FormField("resultOffset", String(offset)), FormField("outFields", "OBJECTID")]
                if let count { fields.append(FormField("resultRecordCount", String(count))) }
                guard case .features(let features, let exceeded) = try await store.answer(layerId: 0, fields, maxRecordCount: max) else {
                    Issue.record("expected features")
                    return Page([], false)
                }
                return Page(features.compactMap { $0.attributes["OBJECTID"]?.intValue }, exceeded)
            }
            do {
                let result = try await page(0, 5)
                #expect(result == Page([1, 2, 3, 4, 5], true))
            }
            do {
                let result = try await page(5, 5)
                #expect(result == Page([6, 7, 8, 9, 10], true))
            }
            do {
                let result = try await page(10, 5)
                #expect(result == Page([11, 12], false))
            }
            do {
                let result = try await page(7, 5)
                #expect(result == Page([8, 9, 10, 11, 12], false))
            }
            do {
                let result = try await page(12, 5)
                #expect(result == Page([], false))
            }
            do {
                let result = try await page(0, nil)
                #expect(result == Page(Array(1...12), false))
            }
            // The cap: no count means maxRecordCount; a larger count is capped.
            do {
                let result = try await page(0, nil, max: 4)
                #expect(result == Page([1, 2, 3, 4], true))
            }
            do {
                let result = try await page(0, 100, max: 4)
                #expect(result == Page([1, 2, 3, 4], true))
            }
            do {
                let result = try await page(8, 100, max: 4)
                #expect(result == Page([9, 10, 11, 12], false))
            }
        }
    }

    @Test("orderByFields sorts, with OBJECTID breaking ties", .timeLimit(.minutes(1)))
    func order() async throws {
        try await withStore { store in
            guard
                case .features(let features, _) = try await store.answer(
                    layerId: 0,
                    [FormField("outFields", "state,OBJECTID"), FormField("orderByFields", "state ASC")]
                )
            else {
                Issue.record("expected features")
                return
            }
            let pairs = features.map { ($0.attributes["state"]?.stringValue ?? "", $0.attributes["OBJECTID"]?.intValue ?? 0) }
            #expect(pairs.map(\.0) == pairs.map(\.0).sorted())
            #expect(pairs.filter { $0.0 == "WY" }.map(\.1) == [1, 10])
        }
    }

    @Test("outFields chooses attributes; returnGeometry=false drops geometry; tables have none", .timeLimit(.minutes(1)))
    func outFields() async throws {
        try await withStore { store in
            guard
                case .features(let parks, _) = try await store.answer(
                    layerId: 0,
                    [FormField("outFields", "NAME, visitors"), FormField("objectIds", "1"), FormField("returnGeometry", "False")]
                )
            else {
                Issue.record("expected features")
                return
            }
            #expect(parks.first?.attributes == ["name": "Yellowstone", "visitors": 4_501_382])
            #expect(parks.first?.geometry == nil)
            guard case .features(let defaults, _) = try await store.answer(layerId: 0, [FormField("objectIds", "2")]) else {
                Issue.record("expected features")
                return
            }
            #expect(defaults.first?.attributes == ["OBJECTID": 2])
            #expect(defaults.first?.geometry == .point(x: -119.5383, y: 37.8651))
            guard case .features(let species, _) = try await store.answer(layerId: 1, [FormField("outFields", "*"), FormField("objectIds", "1")])
            else {
                Issue.record("expected features")
                return
            }
            #expect(species.first?.geometry == nil)
            #expect(species.first?.attributes["common_name"] == "Gray Wolf")
            #expect(species.first?.attributes.count == 7)
        }
    }

    @Test("dates come back as epoch milliseconds and doubles as numbers", .timeLimit(.minutes(1)))
    func types() async throws {
        try await withStore { store in
            let park = try #require(try await store.features(layerId: 0, where: "OBJECTID = 1").first)
            #expect(park.attributes["established"] == .int(CivilDate.epochMilliseconds(year: 1872, month: 3, day: 1)))
            #expect(park.attributes["established"] == .int(-3_087_417_600_000))
            #expect(park.attributes["area_km2"] == .double(8983.2))
            #expect(park.attributes["category"] == .int(1))
        }
    }

    struct BadQuery: Sendable, CustomStringConvertible {
        var field: FormField
        var detail: String
        var description: String { "\(field.name)=\(field.value)" }
    }

    static let badQueries: [BadQuery] = [
        BadQuery(field: FormField("where", "1=1; DROP TABLE layer_0"), detail: "'where' parameter is invalid"),
        BadQuery(field: FormField("where", "nosuch = 1"), detail: "'where' parameter is invalid"),
        BadQuery(field: FormField("outFields", "name,nosuch"), detail: "'outFields' parameter is invalid"),
        BadQuery(field: FormField("orderByFields", "name SIDEWAYS"), detail: "'orderByFields' parameter is invalid"),
        BadQuery(field: FormField("orderByFields", "nosuch"), detail: "'orderByFields' parameter is invalid"),
        BadQuery(field: FormField("objectIds", "1,two"), detail: "'objectIds' parameter is invalid"),
        BadQuery(field: FormField("resultOffset", "-1"), detail: "'resultOffset' parameter is invalid"),
        BadQuery(field: FormField("resultRecordCount", "ten"), detail: "'resultRecordCount' parameter is invalid"),
        BadQuery(field: FormField("returnGeometry", "yes"), detail: "'returnGeometry' parameter is invalid"),
    ]

    @Test("invalid query parameters are 400 envelopes naming the parameter", arguments: badQueries)
    func badQuery(_ bad: BadQuery) {
        let error = #expect(throws: ServiceError.self) {
            _ = try LayerQuery.parse(
                RequestParameters([bad.field]),
                layer: LayerSchema(info: ParksDataset.parksLayer, serviceLayers: []),
                limits: RecordLimits(maxRecordCount: 10)
            )
        }
        #expect(error?.error.code == 400)
        #expect(error?.error.message == "Unable to complete operation.")
        #expect(error?.error.details.first == bad.detail)
    }

    @Test("the where error body is exactly ArcGIS' fixed text")
    func whereEnvelope() throws {
        let text = String(buffer: FeatureServerResponder.renderError(ServiceError.invalidWhere.error).body)
        #expect(text == #"{"error":{"code":400,"message":"Unable to complete operation.","details":["'where' parameter is invalid"]}}"#)
    }
}
