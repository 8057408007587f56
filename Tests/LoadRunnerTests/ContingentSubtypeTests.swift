import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import LoadRunner
import LocalFeatureServer
import Logging
import Testing

/// Contingent values by subtype, and deep inserts whose parent layer has contingent values.
@Suite struct ContingentSubtypeTests {
    /// Nests with a subtype field `kind` (1 raptor, 2 heron): a raptor nest that is active must be protected all year
    /// (2), a heron nest that is active only seasonally (1); the heron subtype narrows protection to 0 and 1.
    static var layer: LayerInfo {
        let protection = Domain.codedValue(
            name: "Protection",
            codedValues: [CodedValue(name: "None", code: 0), CodedValue(name: "Seasonal", code: 1), CodedValue(name: "Year-round", code: 2)])
        var layer = LayerInfo(
            id: 0, name: "Nests", type: "Feature Layer", geometryType: .point, objectIdField: "OBJECTID", globalIdField: "GlobalID",
            fields: [
                Field(name: "OBJECTID", type: .oid, nullable: false, editable: false),
                Field(name: "GlobalID", type: .globalID, nullable: false, editable: false),
                Field(name: "kind", type: .smallInteger),
                Field(
                    name: "status", type: .string, length: 10,
                    domain: .codedValue(
                        name: "Status", codedValues: [CodedValue(name: "Active", code: "Active"), CodedValue(name: "Inactive", code: "Inactive")])),
                Field(name: "protection", type: .smallInteger, domain: protection),
            ])
        layer.typeIdField = "kind"
        layer.types = [
            FeatureSubtype(id: 1, name: "Raptor"),
            FeatureSubtype(
                id: 2, name: "Heron",
                domains: [
                    "protection": .codedValue(
                        name: "HeronProtection", codedValues: [CodedValue(name: "None", code: 0), CodedValue(name: "Seasonal", code: 1)])
                ]),
        ]
        return layer
    }

    static var definition: ContingentValuesDefinition {
        ContingentValuesDefinition(fieldGroups: [
            .init(
                name: "status_protection", isRestrictive: true, fields: ["status", "protection"], subtypeCode: 1,
                contingencies: [[.code("Active"), .code(2)], [.code("Inactive"), .any]]),
            .init(
                name: "status_protection", isRestrictive: true, fields: ["status", "protection"], subtypeCode: 2,
                contingencies: [[.code("Active"), .code(1)], [.code("Inactive"), .code(0)]]),
        ])
    }

    static func nest(kind: Int64, status: String, protection: Int64?) -> Feature {
        Feature(
            attributes: ["kind": .int(kind), "status": .string(status), "protection": protection.map { .int($0) } ?? .null],
            geometry: .point(x: 0, y: 0))
    }

    @Test("a feature follows its own subtype's field groups: shaped from them, refused by them, and never by another subtype's")
    func subtypeGroups() {
        let shaper = ValidityShaper(layer: Self.layer, contingentValues: Self.definition)
        // The SDK's verdicts, subtype by subtype.
        #expect(shaper.refusal(Self.nest(kind: 1, status: "Active", protection: 2)) == nil)
        #expect(shaper.refusal(Self.nest(kind: 2, status: "Active", protection: 1)) == nil)
        #expect(shaper.refusal(Self.nest(kind: 2, status: "Active", protection: 2)) != nil, "the heron's domain has no 2")
        #expect(shaper.refusal(Self.nest(kind: 1, status: "Active", protection: 1))?.contains("status_protection") == true)
        #expect(shaper.refusal(Self.nest(kind: 2, status: "Inactive", protection: 1))?.contains("status_protection") == true)

        var random = SplitMix64(seed: 5)
        for index in 0..<200 {
            let kind = Int64(1 + index % 2)
            let shaped = shaper.respecting(Self.nest(kind: kind, status: index % 3 == 0 ? "Inactive" : "Active", protection: 2), random: &random)
            #expect(shaper.refusal(shaped) == nil, "\(shaped.attributes)")
            if shaped.attributes["status"] == "Active" { #expect(shaped.attributes["protection"] == .int(kind == 1 ? 2 : 1), "\(shaped.attributes)") }
            let broken = shaper.breaking(shaped, random: &random)
            #expect(shaper.refusal(broken) != nil, "broken on purpose, for its own subtype: \(broken.attributes)")
        }
    }

    /// A nests layer with restrictive contingent values and a visits table related to it by the nest's GlobalID.
    static let dataset = #"""
        {"name":"nestvisits","serviceDescription":"Nests with contingent protection rules, and visits to them.","layers":[
         {"id":0,"name":"Nests","type":"Feature Layer","geometryType":"esriGeometryPoint","objectIdField":"OBJECTID","globalIdField":"GlobalID","hasAttachments":false,
          "extent":{"xmin":-123.5,"ymin":45.0,"xmax":-121.5,"ymax":47.0,"spatialReference":{"wkid":4326,"latestWkid":4326}},
          "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID","alias":"OBJECTID","length":4,"nullable":false,"editable":false},
           {"name":"GlobalID","type":"esriFieldTypeGlobalID","alias":"GlobalID","length":38,"nullable":false,"editable":false},
           {"name":"status","type":"esriFieldTypeString","length":10,"nullable":false,"domain":{"type":"codedValue","name":"NestStatus","codedValues":[{"name":"Active","code":"Active"},{"name":"Inactive","code":"Inactive"},{"name":"Unknown","code":"Unknown"}]}},
           {"name":"protection","type":"esriFieldTypeSmallInteger","nullable":false,"domain":{"type":"codedValue","name":"Protection","codedValues":[{"name":"None","code":0},{"name":"Seasonal","code":1},{"name":"Year-round","code":2}]}}],
          "contingentValues":{"fieldGroups":[{"name":"status_protection","restrictive":true,"fields":["status","protection"],"contingencies":[["Active",2],["Inactive",0],["Unknown",1]]}]},
          "relationships":[{"id":0,"name":"Nest_Visits","relatedTableId":1,"cardinality":"esriRelCardinalityOneToMany","role":"esriRelRoleOrigin","keyField":"GlobalID","composite":false}],
          "seedRows":[{"attributes":{"GlobalID":"{566BF9D7-C55A-45F8-A1A6-E55E9B9B1325}","status":"Active","protection":2},"geometry":{"x":-123.2,"y":45.3}}],"generator":{"rows":0,"seed":3}},
         {"id":1,"name":"Visits","type":"Table","objectIdField":"OBJECTID","globalIdField":"GlobalID",
          "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID","alias":"OBJECTID","length":4,"nullable":false,"editable":false},
           {"name":"GlobalID","type":"esriFieldTypeGlobalID","alias":"GlobalID","length":38,"nullable":false,"editable":false},
           {"name":"nest_guid","type":"esriFieldTypeGUID","length":38},{"name":"note","type":"esriFieldTypeString","length":64}],
          "relationships":[{"id":0,"name":"Nest_Visits","relatedTableId":0,"cardinality":"esriRelCardinalityOneToMany","role":"esriRelRoleDestination","keyField":"nest_guid","composite":false}],
          "seedRows":[],"generator":{"rows":0,"seed":4}}]}
        """#

    @Test(
        "a deep insert's parent follows its layer's contingent values: every nest the run added (with its visits) is a combination the layer allows",
        .timeLimit(.minutes(2)))
    func deepInsertParents() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/nestvisits.json"
        try Self.dataset.write(toFile: path, atomically: true, encoding: .utf8)
        let plan = try ScenarioParser.parse(
            yaml: RunnerIntegrationTests.plan(
                "  nests:\n    executor: shared-iterations\n    vus: 2\n    iterations: 40\n    exec: deepInsert\n    relationship: 0\n    children: 2"
            ),
            file: "test.yaml")
        var configuration = LocalFeatureServerConfiguration(dataset: path)
        configuration.databasePath = directory.path + "/data.sqlite"
        var logger = Logger(label: "test")
        logger.logLevel = .error
        try await withLocalFeatureServer(configuration, logger: logger) { endpoint in
            try await withCurlTransport { transport in
                let url = endpoint.serviceURL("nestvisits")
                let report = try await ScenarioRunner(
                    plan: plan, planFile: "test.yaml", connection: ServiceConnection(url: url, transport: transport),
                    target: RunReport.TargetInfo(kind: "local", serviceURL: url), clock: ContinuousClock(), toolVersion: "test"
                ).run()
                let view = try #require(report.views.first)
                #expect(report.verdict.passed, "\(report.verdict.failures) \(report.scenarios.first?.errors ?? [:])")
                #expect(view.editsApplied == 40 * 3 && view.editsInvalid == 0)
                let nests = try await FeatureLayerClient(url: url + "/0", transport: transport).queryAll(
                    FeatureQuery(whereClause: "1=1", outFields: ["status", "protection"], returnGeometry: false))
                #expect(nests.count == 41)
                let allowed: Set<String> = ["Active 2", "Inactive 0", "Unknown 1"]
                let combinations = nests.map {
                    "\($0[attribute: "status"]?.stringValue ?? "null") \($0[attribute: "protection"]?.intValue.map(String.init) ?? "null")"
                }
                #expect(combinations.allSatisfy(allowed.contains), "\(Set(combinations).subtracting(allowed))")
            }
        }
    }
}
