import FeatureModel
import Foundation
import Testing

/// Deletes through relationships, service-level applyEdits and the per-operation endpoints, over real HTTP.
@Suite struct RelationshipEditHTTPTests {
    @Test(
        "deleting an origin: composite cascades, simple nulls the key, many-to-many drops links; cardinality is not enforced", .timeLimit(.minutes(1))
    )
    func deleteRules() async throws {
        try await withDatasetServer(["parks", "servicerequests", "ownerscars", "supplierproducts", "customerorders"]) { client in
            // Composite: Yellowstone's four species go with it.
            #expect(try await client.post(client.url("parks", "/0/applyEdits"), [("deletes", "1")])["deleteResults"]?[0]?["success"] == true)
            #expect(try await client.count("parks", 1) == 26)
            // Simple: request 1's two comments stay, with a null key.
            let requestKey = try await client.rows("servicerequests", 0, where: "OBJECTID = 1").first?["GlobalID"]?.stringValue ?? ""
            #expect(try await client.count("servicerequests", 1, where: "request_guid = '\(requestKey)'") == 2)
            _ = try await client.post(client.url("servicerequests", "/0/deleteFeatures"), [("objectIds", "1")])
            #expect(try await client.count("servicerequests", 1) == 8)
            #expect(try await client.count("servicerequests", 1, where: "request_guid IS NULL") == 3)
            // One-to-one on a plain key: the car stays, without an owner.
            _ = try await client.post(client.url("ownerscars", "/0/deleteFeatures"), [("where", "owner_id = 101")])
            #expect(try await client.rows("ownerscars", 1, where: "plate = 'ADA-101'").first?["owner_id"] == .null)
            // Cardinality is not enforced: a second car for owner 102 is accepted.
            let second = try await client.post(
                client.url("ownerscars", "/1/addFeatures"), [("features", #"[{"attributes":{"owner_id":102,"make":"Mini","plate":"GRH-2"}}]"#)])
            #expect(second["addResults"]?[0]?["success"] == true)
            #expect(try await client.count("ownerscars", 1, where: "owner_id = 102") == 2)
            // Many-to-many: deleting a supplier removes its three links, not the products; deleting a product its links.
            _ = try await client.post(client.url("supplierproducts", "/0/deleteFeatures"), [("objectIds", "1")])
            #expect(try await client.count("supplierproducts", 2) == 6)
            #expect(try await client.count("supplierproducts", 1) == 6)
            _ = try await client.post(client.url("supplierproducts", "/1/deleteFeatures"), [("objectIds", "5")])
            #expect(try await client.count("supplierproducts", 2) == 4)
            // Zero-or-one-to-many: a customer's orders lose their key; guest orders are untouched.
            _ = try await client.post(client.url("customerorders", "/0/deleteFeatures"), [("where", "company = 'Alfreds Futterkiste'")])
            #expect(try await client.count("customerorders", 1) == 7)
            #expect(try await client.count("customerorders", 1, where: "customer_guid IS NULL") == 4)
        }
    }

    @Test("service applyEdits: parent and child in one call by client GlobalIDs, answered per layer", .timeLimit(.minutes(1)))
    func serviceApplyEdits() async throws {
        try await withDatasetServer(["servicerequests"]) { client in
            let parent = "{0B5E7C1A-2D3F-4A6B-8C9D-0E1F2A3B4C5D}"
            let edits = """
                [{"id":0,"adds":[{"attributes":{"GlobalID":"\(parent)","request_type":"Pothole","priority":2},"geometry":{"x":-117.1,"y":32.8}}]},
                 {"id":1,"adds":[{"attributes":{"request_guid":"\(parent.lowercased())","comment":"Reported by phone"}},
                                 {"attributes":{"request_guid":"\(parent)","comment":"Crew notified"}}],
                          "updates":[{"attributes":{"OBJECTID":1,"author":"Editor"}}],"deletes":[8]}]
                """
            let answer = try await client.post(
                client.url("servicerequests", "/applyEdits"), [("edits", edits), ("useGlobalIds", "true"), ("returnEditMoment", "true")])
            let layers = try #require(answer.arrayValue)
            #expect(layers.map { $0["id"] } == [0, 1])
            #expect(layers[0]["addResults"]?[0]?["globalId"] == .string(parent))
            #expect(layers[0]["updateResults"] == [] && layers[0]["deleteResults"] == [])
            #expect(layers[1]["addResults"]?.arrayValue?.allSatisfy { $0["success"] == true } == true)
            #expect(layers[1]["updateResults"]?[0]?["objectId"] == 1 && layers[1]["deleteResults"]?[0]?["objectId"] == 8)
            #expect(layers[1]["editMoment"]?.intValue != nil)
            let objectId = try #require(layers[0]["addResults"]?[0]?["objectId"]?.intValue)
            let related = try await client.get(
                client.url("servicerequests", "/0/queryRelatedRecords"),
                [("objectIds", "\(objectId)"), ("outFields", "comment"), ("orderByFields", "comment")])
            #expect(
                related["relatedRecordGroups"]?[0]?["relatedRecords"] == [
                    ["attributes": ["comment": "Crew notified"]], ["attributes": ["comment": "Reported by phone"]],
                ])
        }
    }

    @Test("service applyEdits rolls back every layer when one edit fails; without rollback the good edits land", .timeLimit(.minutes(1)))
    func serviceRollback() async throws {
        try await withDatasetServer(["customerorders"]) { client in
            let edits = """
                [{"id":0,"adds":[{"attributes":{"company":"Blauer See"}}],"deletes":[2]},
                 {"id":1,"adds":[{"attributes":{"order_number":"SO-2000","total":10}},{"attributes":{"order_number":"SO-2001","total":-5}}]}]
                """
            let failed = try await client.post(client.url("customerorders", "/applyEdits"), [("edits", edits)])
            #expect(failed["error"]?["code"] == 400)
            let details = failed["error"]?["details"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(details.contains { $0.hasPrefix("layer 1 adds[1]:") && $0.contains("1019") })
            #expect(details.last == "Operation rolled back.")
            #expect(try await client.count("customerorders", 0) == 4)
            #expect(try await client.count("customerorders", 1) == 7)
            #expect(try await client.count("customerorders", 1, where: "customer_guid IS NULL") == 2)  // the delete's nulling rolled back too

            let partial = try await client.post(client.url("customerorders", "/applyEdits"), [("edits", edits), ("rollbackOnFailure", "false")])
            #expect(partial[1]?["addResults"]?.arrayValue?.map { $0["success"] } == [true, false])
            #expect(partial[1]?["addResults"]?[1]?["error"]?["code"] == 1019)
            #expect(try await client.count("customerorders", 0) == 4)  // one added, one deleted
            #expect(try await client.count("customerorders", 1) == 8)

            for bad in [#"{"id":0}"#, #"[{"adds":[]}]"#, #"[{"id":9,"adds":[]}]"#, "[{"] {
                #expect(try await client.post(client.url("customerorders", "/applyEdits"), [("edits", bad)])["error"]?["code"] == 400, "\(bad)")
            }
        }
    }

    @Test("addFeatures, updateFeatures and deleteFeatures answer their one documented array", .timeLimit(.minutes(1)))
    func perOperation() async throws {
        try await withDatasetServer(["birdnests"]) { client in
            let added = try await client.post(
                client.url("birdnests", "/0/addFeatures"),
                [
                    (
                        "features",
                        #"[{"attributes":{"species":"OSPR","status":"Active","protection":1,"buffer_m":150},"geometry":{"x":-122.5,"y":45.5}}]"#
                    )
                ])
            #expect(added.objectValue?.keys.sorted() == ["addResults"])
            let objectId = try #require(added["addResults"]?[0]?["objectId"]?.intValue)
            #expect(objectId == 11)
            let updated = try await client.post(
                client.url("birdnests", "/0/updateFeatures"),
                [("features", #"[{"attributes":{"OBJECTID":11,"buffer_m":200}}]"#), ("returnEditMoment", "true")])
            #expect(updated["updateResults"] == [["objectId": 11, "success": true, "globalId": added["addResults"]?[0]?["globalId"] ?? nil]])
            #expect(updated["editMoment"]?.intValue != nil)
            #expect(try await client.rows("birdnests", 0, where: "OBJECTID = 11").first?["buffer_m"] == 200)

            let byWhere = try await client.post(client.url("birdnests", "/0/deleteFeatures"), [("where", "species = 'PEFA'")])
            #expect(byWhere["deleteResults"]?.arrayValue?.compactMap { $0["objectId"]?.intValue } == [7, 8])
            let byBoth = try await client.post(client.url("birdnests", "/0/deleteFeatures"), [("objectIds", "1,2,3"), ("where", "species = 'BAEA'")])
            #expect(byBoth["deleteResults"]?.arrayValue?.compactMap { $0["objectId"]?.intValue } == [1, 2])
            let missing = try await client.post(client.url("birdnests", "/0/deleteFeatures"), [("objectIds", "1"), ("rollbackOnFailure", "false")])
            #expect(missing["deleteResults"]?[0]?["error"]?["code"] == 1011)
            #expect(try await client.count("birdnests", 0) == 7)

            for fields in [[("where", "1=1; DROP TABLE layer_0")], [(String, String)](), [("objectIds", "x")]] {
                #expect(try await client.post(client.url("birdnests", "/0/deleteFeatures"), fields)["error"]?["code"] == 400, "\(fields)")
            }
            #expect(try await client.post(client.url("birdnests", "/0/addFeatures"), [("features", "{")])["error"]?["code"] == 400)
            #expect(try await client.count("birdnests", 0) == 7)
        }
    }
}
