import FeatureModel
import Foundation

@testable import LocalFeatureServer

/// A temporary directory for one test's database files, removed afterwards.
struct TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-store-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Opens a store for `definition` on a fresh file, runs `body`, closes and removes it.
@discardableResult
func withStore<T: Sendable>(
    _ definition: ServiceDefinition = ParksDataset.definition,
    _ body: @Sendable (FeatureStore) async throws -> T
) async throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let store = try FeatureStore.open(path: directory.path("test.sqlite"), definition: definition) { 1_700_000_000_000 }
    do {
        let result = try await body(store)
        try await store.close()
        return result
    } catch {
        try? await store.close()
        throw error
    }
}

/// A valid park add with `overrides` applied (a `.null` override removes nothing: it sets null).
func parkAdd(_ overrides: [String: JSONValue] = [:], geometry: JSONValue? = ["x": -100.0, "y": 40.0]) -> FeatureEdit {
    var attributes: [String: JSONValue] = ["name": "Test Park", "state": "CO", "category": 1, "area_km2": 12.5, "visitors": 1000]
    for (key, value) in overrides { attributes[key] = value }
    return FeatureEdit(attributes: attributes, geometry: geometry)
}

extension FeatureStore {
    /// All features of layer `layerId` matching `whereClause`, all fields, ordered by OBJECTID.
    func features(layerId: Int, where whereClause: String = "1=1") async throws -> [Feature] {
        let schema = schemas[layerId]!
        let query = try LayerQuery.parse(
            RequestParameters([FormField("where", whereClause), FormField("outFields", "*")]),
            layer: schema,
            limits: RecordLimits(maxRecordCount: 100_000)
        )
        guard case .features(let features, _) = try await self.query(layerId: layerId, query) else { return [] }
        return features
    }

    /// The answer to a query given as form fields.
    func answer(layerId: Int, _ fields: [FormField], maxRecordCount: Int = 2000) async throws -> QueryAnswer {
        let query = try LayerQuery.parse(RequestParameters(fields), layer: schemas[layerId]!, limits: RecordLimits(maxRecordCount: maxRecordCount))
        return try await self.query(layerId: layerId, query)
    }
}
