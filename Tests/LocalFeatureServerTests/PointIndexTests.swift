import FeatureModel
import FeatureServiceClient
import Foundation
import GRDB
import Testing

@testable import LocalFeatureServer

/// A point layer's coordinate index: a map tile's box is looked up through it (SQLite's own plan for the product's
/// own query, not a scan of every row), and a file made before it gets it when opened, with the same answers.
@Suite struct PointIndexTests {
    @Test("a tile query on points searches the coordinate index; an older file gets the index on opening", .timeLimit(.minutes(1)))
    func index() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("parks.sqlite")
        let configure = { (configuration: inout LocalFeatureServerConfiguration) in
            configuration.databasePath = path
            configuration.generatedRows = 300
        }
        let tile = [("geometry", "-110,35,-100,45"), ("returnIdsOnly", "true")]
        let before = try await withConfiguredServer(configure) { endpoint in
            try await withCurlTransport { transport in
                try await DatasetClient(transport: transport, endpoint: endpoint).get(endpoint.serviceURL("parks") + "/0/query", tile)
            }
        }
        let queue = try DatabaseQueue(path: path)
        let layer = LayerSchema(info: ParksDataset.parksLayer, serviceLayers: [])
        let query = try LayerQuery.parse(RequestParameters(tile.map { FormField($0.0, $0.1) }), layer: layer, limits: RecordLimits())
        let condition = QueryReader.condition(query, layer: layer)
        let plan = try await queue.read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN SELECT OBJECTID FROM layer_0 WHERE \(condition.sql) ORDER BY OBJECTID",
                arguments: StatementArguments(condition.bindings)
            ).map { $0["detail"] as String? ?? "" }
        }
        #expect(plan.contains { $0.contains("USING COVERING INDEX layer_0_shape_xy") }, "\(plan)")
        try await queue.write { try $0.execute(sql: "DROP INDEX layer_0_shape_xy") }
        try queue.close()
        let after = try await withConfiguredServer(configure) { endpoint in
            try await withCurlTransport { transport in
                try await DatasetClient(transport: transport, endpoint: endpoint).get(endpoint.serviceURL("parks") + "/0/query", tile)
            }
        }
        #expect(after == before && (before["objectIds"]?.arrayValue?.count ?? 0) > 5)
        let restored = try await DatabaseQueue(path: path).read {
            try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name = 'layer_0_shape_xy'")
        }
        #expect(restored == 1)
    }
}
