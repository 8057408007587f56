import FeatureModel
import Foundation
import Testing

@testable import LoadRunner

/// Exactly-once adds on the generator's fast path: the same features, each with its client GlobalID.
@Suite struct EncodedGlobalIDTests {
    @Test(
        "formEncoded with GlobalIDs decodes to the generator's features, each with its GlobalID",
        arguments: [
            GeometryType?.some(.point), GeometryType?.none,
        ])
    func sameFeaturesWithGlobalIds(geometry: GeometryType?) throws {
        let generator = FeatureGenerator(layer: FeatureEncodingTests.layer(geometry: geometry, extent: nil), seed: 7)
        var random = SplitMix64(seed: 3)
        for (start, count) in [(0, 1), (5, 40), (1 << 33, 7)] {
            let ids = (0..<count).map { GlobalID.makeTimeOrdered(milliseconds: 1_764_633_600_000, sequence: $0, using: &random) }
            let form = generator.formEncoded(from: start, count: count, globalIdField: "GlobalID", globalIds: ids)
            let decoded = try JSONDecoder().decode([Feature].self, from: Data(FormEncoding.decodedValue(form).utf8))
            let plain = try JSONDecoder().decode([Feature].self, from: Data(generator.encode(from: start, count: count).utf8))
            #expect(decoded.count == count)
            for (offset, (got, want)) in zip(decoded, plain).enumerated() {
                #expect(got.attributes["GlobalID"] == .string(ids[offset]))
                var rest = got
                rest.attributes["GlobalID"] = nil
                #expect(rest == want)
            }
        }
    }

    @Test("a layer whose only written attribute is the GlobalID still gets valid JSON")
    func onlyTheGlobalId() throws {
        let layer = LayerInfo(
            id: 0, name: "Keys", type: "Table", geometryType: nil, objectIdField: "OBJECTID", globalIdField: "GlobalID",
            fields: [
                Field(name: "OBJECTID", type: .oid, nullable: false, editable: false),
                Field(name: "GlobalID", type: .globalID, length: 38, nullable: false, editable: false),
            ])
        let generator = FeatureGenerator(layer: layer, seed: 1)
        let ids = ["{0193E1A2-0000-7000-8000-000000000001}", "{0193E1A2-0000-7001-8000-000000000002}"]
        let form = generator.formEncoded(from: 0, count: 2, globalIdField: "GlobalID", globalIds: ids)
        let decoded = try JSONDecoder().decode([Feature].self, from: Data(FormEncoding.decodedValue(form).utf8))
        #expect(decoded.map { $0.attributes["GlobalID"] } == ids.map { JSONValue.string($0) })
    }
}
