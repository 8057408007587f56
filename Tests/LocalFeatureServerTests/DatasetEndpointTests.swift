import FeatureModel
import Foundation
import LocalFeatureServer
import Testing

/// Every shipped dataset over real HTTP (libcurl, port 0): metadata, relationships resource, contingent values.
@Suite struct DatasetEndpointTests {
    @Test("all six datasets are served at once; every layer answers its document and its seeded count", .timeLimit(.minutes(1)))
    func everyDataset() async throws {
        try await withDatasetServer(shippedDatasets) { client in
            #expect(client.endpoint.serviceNames == shippedDatasets)
            let catalog = try await client.get(client.endpoint.rootURL)
            #expect(catalog["services"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == shippedDatasets)
            for name in shippedDatasets {
                let definition = try #require(ServiceDefinition.builtIn(named: name))
                let service = try await client.get(client.url(name))
                #expect(service["supportsRelationshipsResource"] == true, "\(name)")
                #expect(service["supportsQueryContingentValues"] == true, "\(name)")
                let listed = (service["layers"]?.arrayValue ?? []) + (service["tables"]?.arrayValue ?? [])
                #expect(listed.count == definition.layers.count, "\(name)")
                for layer in definition.layers {
                    let document = try await client.get(client.url(name, "/\(layer.info.id)"))
                    #expect(document["name"]?.stringValue == layer.info.name)
                    #expect(document["fields"]?.arrayValue?.count == layer.info.fields.count)
                    #expect(document["hasContingentValuesDefinition"] == .bool(layer.contingentValues?.isEmpty == false))
                    #expect(try await client.count(name, layer.info.id) == Int64(layer.seedRows.count), "\(name)/\(layer.info.id)")
                }
            }
        }
    }

    @Test("relationships appear on both sides with their roles, and in the service relationships resource", .timeLimit(.minutes(1)))
    func relationships() async throws {
        try await withDatasetServer(shippedDatasets) { client in
            let expected: [(String, Int, Int, String, Bool)] = [
                ("parks", 0, 1, "esriRelCardinalityOneToMany", true), ("servicerequests", 0, 1, "esriRelCardinalityOneToMany", false),
                ("ownerscars", 0, 1, "esriRelCardinalityOneToOne", false), ("supplierproducts", 0, 1, "esriRelCardinalityManyToMany", false),
                ("customerorders", 0, 1, "esriRelCardinalityOneToMany", false),
            ]
            for (name, origin, destination, cardinality, composite) in expected {
                let originSide = try await client.get(client.url(name, "/\(origin)"))["relationships"]?[0]
                let destinationSide = try await client.get(client.url(name, "/\(destination)"))["relationships"]?[0]
                #expect(originSide?["role"] == "esriRelRoleOrigin", "\(name)")
                #expect(destinationSide?["role"] == "esriRelRoleDestination", "\(name)")
                #expect(originSide?["relatedTableId"] == .int(Int64(destination)) && destinationSide?["relatedTableId"] == .int(Int64(origin)))
                #expect(originSide?["cardinality"] == .string(cardinality) && originSide?["composite"] == .bool(composite))
                let resource = try await client.get(client.url(name, "/relationships"))
                let entry = try #require(resource["relationships"]?[0], "\(name)")
                #expect(entry["originLayerId"] == .int(Int64(origin)) && entry["destinationLayerId"] == .int(Int64(destination)))
                #expect(entry["cardinality"] == .string(cardinality) && entry["composite"] == .bool(composite))
                #expect(entry["attributed"] == .bool(cardinality == "esriRelCardinalityManyToMany"))
                #expect(entry["rules"] == [])
            }
            let link = try await client.get(client.url("supplierproducts", "/relationships"))["relationships"]?[0]
            #expect(link?["relationshipTableId"] == 2)
            #expect(link?["originForeignKey"] == "supplier_guid" && link?["destinationForeignKey"] == "product_guid")
            #expect(
                try await client.get(client.url("supplierproducts", "/0"))["relationships"]?[0]?["keyFieldInRelationshipTable"] == "supplier_guid")
            let owners = try await client.get(client.url("customerorders", "/relationships"))["relationships"]?[0]
            #expect(owners?["originPrimaryKey"] == "GlobalID" && owners?["originForeignKey"] == "customer_guid")
            #expect(try await client.get(client.url("birdnests", "/relationships"))["relationships"] == [])
        }
    }

    @Test("contingent values: the layer resource and queryContingentValues in the documented shape", .timeLimit(.minutes(1)))
    func contingentValues() async throws {
        try await withDatasetServer(["birdnests", "parks"]) { client in
            let document = try await client.get(client.url("birdnests", "/0/contingentValues"))
            #expect(document["typeCodes"] == ["Unknown", "Any", "Null", "Code", "Range"])
            let dictionaries = document["stringDicts"]?.arrayValue ?? []
            let status = try #require(dictionaries.first { $0["domain"] == "NestStatus" })
            #expect(status["entries"] == ["Active", "Inactive", "Unknown"])
            let groups = try #require(document["contingentValuesDefinition"]?["fieldGroups"]?.arrayValue)
            #expect(groups.map { $0["name"] } == ["status_protection", "protection_buffer", "species_status"])
            #expect(groups.map { $0["restrictive"] } == [true, true, false])
            #expect(groups[0]["fields"] == ["status", "protection"])
            #expect(groups[0]["domains"] == ["status": "NestStatus", "protection": "Protection"])
            // ["Active", 1]: a string code as its index into stringDicts, a numeric code as itself.
            #expect(groups[0]["contingentValues"]?[0] == ["id": 1, "types": [3, 3], "values": [0, 1]])
            // ["Unknown", any]
            #expect(groups[0]["contingentValues"]?[5] == ["id": 6, "types": [3, 1], "values": [2]])
            // [1, range 100…300] and [null, null]
            #expect(groups[1]["contingentValues"]?[2] == ["id": 3, "types": [3, 4], "values": [1, 100, 300]])
            #expect(groups[1]["contingentValues"]?[4] == ["id": 5, "types": [2, 2], "values": []])

            let service = try await client.get(client.url("birdnests", "/queryContingentValues"))
            let layers = try #require(service["contingentValuesDefinition"]?["layers"]?.arrayValue)
            #expect(layers.count == 1 && layers[0]["layerID"] == 0)
            #expect(layers[0]["fieldGroups"] == document["contingentValuesDefinition"]?["fieldGroups"])
            #expect(
                try await client.get(client.url("birdnests", "/queryContingentValues"), [("layers", "5")])["contingentValuesDefinition"]?["layers"]
                    == [])
            let parks = try await client.get(client.url("parks", "/0/contingentValues"))
            #expect(parks["contingentValuesDefinition"]?["fieldGroups"] == [])
            #expect(try await client.get(client.url("birdnests", "/0"))["hasContingentValuesDefinition"] == true)
        }
    }

    @Test("--rows generates seeded rows in every layer with a generator", .timeLimit(.minutes(1)))
    func generatedRows() async throws {
        try await withDatasetServer(["customerorders", "supplierproducts"], generatedRows: 300) { client in
            #expect(try await client.count("customerorders", 0) == 304)
            #expect(try await client.count("customerorders", 1) == 307)
            #expect(try await client.count("supplierproducts", 2) == 309)
            // Every generated link joins an existing supplier to an existing product.
            let related = try await client.get(
                client.url("supplierproducts", "/0/queryRelatedRecords"),
                [("objectIds", (1...304).map(String.init).joined(separator: ",")), ("relationshipId", "0"), ("returnCountOnly", "true")])
            let total = related["relatedRecordGroups"]?.arrayValue?.compactMap { $0["count"]?.intValue }.reduce(0, +)
            #expect(total == 309)
        }
    }

    @Test("a malformed dataset file stops the server with the file, every JSON path and the fix", .timeLimit(.minutes(1)))
    func malformedFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("broken.json")
        try #"{"name": "broken", "layers": [{"id": 0, "name": "A", "fields": [{"name": "OBJECTID", "type": "esriFieldTypeOid"}], "colour": 1}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        do {
            try await withDatasetServer([path]) { _ in Issue.record("the server started") }
        } catch let error as LocalFeatureServerError {
            let text = "\(error)"
            #expect(text.contains("\(path): layers[0].fields[0].type: unknown field type 'esriFieldTypeOid'; use one of esriFieldTypeOID"))
            #expect(text.contains("layers[0].colour: unknown key 'colour'"))
            #expect(error.datasetIssues.count == 2)
        }
    }
}
