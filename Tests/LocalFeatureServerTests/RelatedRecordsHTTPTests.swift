import FeatureModel
import Foundation
import Testing

/// queryRelatedRecords over real HTTP, in both directions, one-to-one and through the many-to-many table.
@Suite struct RelatedRecordsHTTPTests {
    @Test("origin → destination and back, with outFields, order, definitionExpression, counts and paging", .timeLimit(.minutes(1)))
    func oneToMany() async throws {
        try await withDatasetServer(["parks"]) { client in
            let url = client.url("parks", "/0/queryRelatedRecords")
            let answer = try await client.get(
                url, [("objectIds", "1,2,99"), ("relationshipId", "0"), ("outFields", "common_name,status"), ("orderByFields", "common_name DESC")])
            let groups = try #require(answer["relatedRecordGroups"]?.arrayValue)
            #expect(groups.map { $0["objectId"] } == [1, 2])  // 99 has no related rows: left out
            let names = groups[0]["relatedRecords"]?.arrayValue?.compactMap { $0["attributes"]?["common_name"]?.stringValue }
            #expect(names == ["Grizzly Bear", "Gray Wolf", "Elk", "American Bison"])
            #expect(groups[0]["relatedRecords"]?[0]?["attributes"]?.objectValue?.keys.sorted() == ["common_name", "status"])
            #expect(answer["fields"]?.arrayValue?.count == 2 && answer["geometryType"] == nil && answer["exceededTransferLimit"] == false)

            let filtered = try await client.get(url, [("objectIds", "1,2"), ("definitionExpression", "status IN ('EN', 'NT')"), ("outFields", "*")])
            var statuses: [String] = []
            for group in filtered["relatedRecordGroups"]?.arrayValue ?? [] {
                for record in group["relatedRecords"]?.arrayValue ?? [] {
                    if let status = record["attributes"]?["status"]?.stringValue { statuses.append(status) }
                }
            }
            #expect(statuses.sorted() == ["EN", "EN", "NT"])

            let counts = try await client.get(url, [("objectIds", "1,2,3"), ("returnCountOnly", "true")])
            #expect(counts["relatedRecordGroups"] == [["objectId": 1, "count": 4], ["objectId": 2, "count": 3], ["objectId": 3, "count": 3]])

            let page = try await client.get(url, [("objectIds", "1"), ("resultOffset", "1"), ("resultRecordCount", "2"), ("outFields", "OBJECTID")])
            #expect(page["relatedRecordGroups"]?[0]?["relatedRecords"]?.arrayValue?.count == 2)
            #expect(page["exceededTransferLimit"] == true)

            // Destination → origin: species 8 (California Condor) belongs to Grand Canyon, with its point geometry.
            let back = try await client.get(client.url("parks", "/1/queryRelatedRecords"), [("objectIds", "8"), ("outFields", "name")])
            let park = back["relatedRecordGroups"]?[0]?["relatedRecords"]?[0]
            #expect(park?["attributes"] == ["name": "Grand Canyon"])
            #expect(park?["geometry"] == ["x": -112.1129, "y": 36.1069])
            #expect(back["geometryType"] == "esriGeometryPoint" && back["spatialReference"]?["wkid"] == 4326)
            let noGeometry = try await client.get(client.url("parks", "/1/queryRelatedRecords"), [("objectIds", "8"), ("returnGeometry", "false")])
            #expect(noGeometry["relatedRecordGroups"]?[0]?["relatedRecords"]?[0]?["geometry"] == nil)
        }
    }

    @Test("one-to-one keyed on a plain field, many-to-many through the relationship table, both directions", .timeLimit(.minutes(1)))
    func oneToOneAndManyToMany() async throws {
        try await withDatasetServer(["ownerscars", "supplierproducts"]) { client in
            let car = try await client.get(client.url("ownerscars", "/0/queryRelatedRecords"), [("objectIds", "2"), ("outFields", "plate")])
            #expect(car["relatedRecordGroups"] == [["objectId": 2, "relatedRecords": [["attributes": ["plate": "GRH-102"]]]]])
            let owner = try await client.get(client.url("ownerscars", "/1/queryRelatedRecords"), [("objectIds", "3,5"), ("outFields", "name")])
            #expect(owner["relatedRecordGroups"] == [["objectId": 3, "relatedRecords": [["attributes": ["name": "Alan Turing"]]]]])

            // Northwind (1) supplies Chai, Chang, Aniseed Syrup; Olive Oil (5) comes from Contoso and Fabrikam.
            let products = try await client.get(
                client.url("supplierproducts", "/0/queryRelatedRecords"),
                [("objectIds", "1"), ("outFields", "product_name"), ("orderByFields", "product_name")])
            #expect(
                products["relatedRecordGroups"]?[0]?["relatedRecords"] == [
                    ["attributes": ["product_name": "Aniseed Syrup"]], ["attributes": ["product_name": "Chai"]],
                    ["attributes": ["product_name": "Chang"]],
                ])
            let suppliers = try await client.get(
                client.url("supplierproducts", "/1/queryRelatedRecords"),
                [("objectIds", "5"), ("outFields", "company"), ("orderByFields", "company")])
            #expect(
                suppliers["relatedRecordGroups"]?[0]?["relatedRecords"] == [
                    ["attributes": ["company": "Contoso Foods"]], ["attributes": ["company": "Fabrikam Supply"]],
                ])
            let counts = try await client.get(
                client.url("supplierproducts", "/1/queryRelatedRecords"), [("objectIds", "1,2,3,4,5,6"), ("returnCountOnly", "true")])
            #expect(counts["relatedRecordGroups"]?.arrayValue?.compactMap { $0["count"]?.intValue } == [2, 2, 1, 1, 2, 1])
        }
    }

    @Test("bad requests get the 400 envelope: missing objectIds, unknown relationship, injected definitionExpression", .timeLimit(.minutes(1)))
    func invalid() async throws {
        try await withDatasetServer(["parks"]) { client in
            let url = client.url("parks", "/0/queryRelatedRecords")
            for query in [
                [("relationshipId", "0")], [("objectIds", "1"), ("relationshipId", "7")], [("objectIds", "1"), ("outFields", "nope")],
                [("objectIds", "1"), ("definitionExpression", "1=1; DROP TABLE layer_1")],
                [("objectIds", "1"), ("orderByFields", "status SIDEWAYS")],
            ] {
                let answer = try await client.get(url, query)
                #expect(answer["error"]?["code"] == 400, "\(query)")
                #expect(answer["error"]?["details"]?.arrayValue?.isEmpty == false)
            }
            #expect(try await client.count("parks", 1) == 30)
        }
    }
}
