import FeatureModel
import Foundation
import LocalFeatureServer
import Testing

/// `resultType`, `maxRecordCountFactor`, `returnExceededLimitFeatures` and `cacheHint` over libcurl against a real
/// server with 60 generated parks and limits of 10 (none), 25 (standard) and 7 (tile).
@Suite struct RecordLimitsHTTPTests {
    static func withParks(_ body: @Sendable (DatasetClient) async throws -> Void) async throws {
        try await withDatasetServer(
            ["parks"], generatedRows: 60,
            configure: { configuration in
                configuration.maxRecordCount = 10
                configuration.standardMaxRecordCount = 25
                configuration.tileMaxRecordCount = 7
            }, body)
    }

    /// The number of features answered and `exceededTransferLimit` (false when absent).
    static func page(_ client: DatasetClient, _ fields: [(String, String)]) async throws -> (count: Int, exceeded: Bool) {
        let answer = try await client.get(client.url("parks", "/0/query"), [("outFields", "OBJECTID")] + fields)
        return (answer["features"]?.arrayValue?.count ?? -1, answer["exceededTransferLimit"] == .bool(true))
    }

    @Test("the layer document states the three limits and the tile query capabilities", .timeLimit(.minutes(1)))
    func advertised() async throws {
        try await Self.withParks { client in
            let layer = try WireJSON.decode(LayerInfo.self, from: try WireJSON.string(try await client.get(client.url("parks", "/0"))))
            #expect(layer.maxRecordCount == 10 && layer.standardMaxRecordCount == 25 && layer.tileMaxRecordCount == 7)
            #expect(layer.supportsCoordinatesQuantization == true)
            let capabilities = try #require(layer.advancedQueryCapabilities)
            #expect(capabilities.supportsQueryWithResultType == true)
            #expect(capabilities.supportsMaxRecordCountFactor == true && capabilities.supportsQueryWithCacheHint == true)
        }
    }

    @Test("each resultType has its own cap, times maxRecordCountFactor; resultRecordCount still lowers it", .timeLimit(.minutes(1)))
    func caps() async throws {
        try await Self.withParks { client in
            let total = Int(try await client.count("parks", 0) ?? 0)
            #expect(total > 60)
            let cases: [([(String, String)], Int)] = [
                ([], 10), ([("resultType", "none")], 10), ([("resultType", "standard")], 25), ([("resultType", "tile")], 7),
                ([("resultType", "tile"), ("maxRecordCountFactor", "3")], 21), ([("maxRecordCountFactor", "2")], 20),
                ([("resultType", "standard"), ("maxRecordCountFactor", "5")], total),
                ([("resultType", "tile"), ("resultRecordCount", "5")], 5), ([("resultType", "TILE"), ("cacheHint", "true")], 7),
            ]
            for (fields, expected) in cases {
                let (count, exceeded) = try await Self.page(client, fields + [("where", "1=1")])
                #expect(count == expected, "\(fields)")
                #expect(exceeded == (expected < total), "\(fields)")
            }
        }
    }

    @Test("returnExceededLimitFeatures=false empties a tile that holds too much, and only a tile", .timeLimit(.minutes(1)))
    func exceededTiles() async throws {
        try await Self.withParks { client in
            let dropped = try await Self.page(client, [("where", "1=1"), ("resultType", "tile"), ("returnExceededLimitFeatures", "false")])
            #expect(dropped.count == 0 && dropped.exceeded)
            let few = try await Self.page(client, [("where", "OBJECTID <= 7"), ("resultType", "tile"), ("returnExceededLimitFeatures", "false")])
            #expect(few.count == 7 && !few.exceeded, "exactly the cap is not too much")
            let eight = try await Self.page(client, [("where", "OBJECTID <= 8"), ("resultType", "tile"), ("returnExceededLimitFeatures", "false")])
            #expect(eight.count == 0 && eight.exceeded)
            let standard = try await Self.page(client, [("where", "1=1"), ("resultType", "standard"), ("returnExceededLimitFeatures", "false")])
            #expect(standard.count == 25 && standard.exceeded)
            let kept = try await Self.page(client, [("where", "1=1"), ("resultType", "tile"), ("returnExceededLimitFeatures", "true")])
            #expect(kept.count == 7 && kept.exceeded)
        }
    }

    @Test("a bad resultType, factor or cacheHint is a 400 naming the parameter and what it takes", .timeLimit(.minutes(1)))
    func refusals() async throws {
        try await Self.withParks { client in
            let cases: [(String, String, String)] = [
                ("resultType", "tiles", "must be none, standard or tile"), ("maxRecordCountFactor", "6", "1…5"),
                ("maxRecordCountFactor", "0", "1…5"), ("maxRecordCountFactor", "1.5", "1…5"), ("cacheHint", "maybe", "expected true or false"),
            ]
            for (name, value, reason) in cases {
                let answer = try await client.get(client.url("parks", "/0/query"), [("where", "1=1"), (name, value)])
                #expect(answer["error"]?["code"]?.intValue == 400, "\(name)=\(value)")
                #expect(answer["error"]?["details"]?[0] == .string("'\(name)' parameter is invalid"), "\(name)=\(value): \(answer)")
                #expect(answer["error"]?["details"]?.arrayValue?.contains { $0.stringValue?.contains(reason) == true } == true, "\(answer)")
            }
        }
    }
}
