import FeatureModel
import Foundation
import Testing

@testable import LoadRunner

/// The generator's fast path writes the same features as its `Feature` path, only straight into JSON.
@Suite struct FeatureEncodingTests {
    /// A layer with a field of every kind the generator plans for, fast and slow.
    static func layer(geometry: GeometryType?, extent: Extent?) -> LayerInfo {
        var layer = LayerInfo(
            id: 0, name: "Everything", type: geometry == nil ? "Table" : "Feature Layer", geometryType: geometry,
            objectIdField: "OBJECTID", globalIdField: "GlobalID",
            fields: [
                Field(name: "OBJECTID", type: .oid, nullable: false, editable: false),
                Field(name: "GlobalID", type: .globalID, length: 38, nullable: false, editable: false),
                Field(name: "name", type: .string, length: 12, nullable: false),
                Field(name: "long_text", type: .string, length: 255),
                Field(name: "no_length", type: .string),
                Field(name: "state", type: .string, length: 2),
                Field(name: "naïve", type: .string, length: 9),
                Field(name: "quo\"te", type: .string, length: 40),
                Field(
                    name: "code_int", type: .smallInteger,
                    domain: .codedValue(name: "c", codedValues: [CodedValue(name: "A", code: 1), CodedValue(name: "B", code: 2)])),
                Field(
                    name: "code_text", type: .string, length: 10,
                    domain: .codedValue(name: "t", codedValues: [CodedValue(name: "x", code: "X\"1"), CodedValue(name: "y", code: "Y")])),
                Field(name: "code_empty", type: .integer, domain: .codedValue(name: "e", codedValues: [])),
                Field(name: "range_double", type: .double, domain: .range(name: "r", minValue: -5.5, maxValue: 5)),
                Field(name: "range_int", type: .integer, domain: .range(name: "v", minValue: 10, maxValue: 20)),
                Field(name: "range_empty", type: .integer, domain: .range(name: "z", minValue: 0.2, maxValue: 0.8)),
                Field(name: "range_huge", type: .double, domain: .range(name: "h", minValue: -1e300, maxValue: 1e300)),
                Field(name: "small", type: .smallInteger),
                Field(name: "int", type: .integer),
                Field(name: "big", type: .bigInteger),
                Field(name: "single", type: .single),
                Field(name: "double", type: .double),
                Field(name: "date", type: .date),
                Field(name: "guid_null", type: .guid),
                Field(name: "guid", type: .guid, nullable: false),
                Field(name: "blob", type: FieldType(rawValue: "esriFieldTypeBlob")),
                Field(name: "blob_required", type: FieldType(rawValue: "esriFieldTypeBlob"), nullable: false),
                Field(name: "locked", type: .string, editable: false),
            ])
        layer.extent = extent
        return layer
    }

    @Test(
        "encode(from:count:) decodes to exactly the features of features(from:count:)",
        arguments: [
            (GeometryType?.some(.point), Extent?.none),
            (GeometryType?.some(.point), Extent?.some(Extent(xmin: -20_037_508.34, ymin: -0.5, xmax: 20_037_508.34, ymax: 0.5))),
            (GeometryType?.none, Extent?.none),
        ])
    func sameFeatures(geometry: GeometryType?, extent: Extent?) throws {
        let generator = FeatureGenerator(layer: Self.layer(geometry: geometry, extent: extent), seed: 99)
        for start in [0, 1, 997, 1 << 40] {
            let json = generator.encode(from: start, count: 25)
            let decoded = try JSONDecoder().decode([Feature].self, from: Data(json.utf8))
            // Compared as the service reads them: both through JSON (a whole double such as 3400.0 reads back as 3400).
            let expected = try JSONDecoder().decode(
                [Feature].self, from: Data(JSONWriter.string(features: generator.features(from: start, count: 25)).utf8))
            #expect(decoded.count == 25)
            for (got, want) in zip(decoded, expected) {
                let differing = Set(got.attributes.keys).union(want.attributes.keys).filter { got.attributes[$0] != want.attributes[$0] }
                #expect(
                    differing.isEmpty,
                    "\(differing.sorted().map { "\($0): \(got.attributes[$0].map { "\($0)" } ?? "-") vs \(want.attributes[$0].map { "\($0)" } ?? "-")" })"
                )
                #expect(got.geometry == want.geometry)
            }
        }
    }

    @Test("an applyEdits with encoded adds sends one adds array, features first")
    func formFields() throws {
        let generator = FeatureGenerator(layer: Self.layer(geometry: .point, extent: nil), seed: 1)
        let values = generator.features(from: 0, count: 2)
        var edits = LayerEdits(adds: values, encodedAdds: EncodedFeatures(json: generator.encode(from: 2, count: 3), count: 3))
        #expect(edits.count == 5 && edits.addCount == 5)
        let adds = try #require(edits.formFields(options: .init()).first { $0.name == "adds" })
        let decoded = try JSONDecoder().decode([Feature].self, from: Data(adds.value.utf8))
        #expect(decoded.map(\.attributes) == generator.features(from: 0, count: 5).map(\.attributes))
        edits.adds = []
        let encodedOnly = try #require(edits.formFields(options: .init()).first { $0.name == "adds" })
        #expect(try JSONDecoder().decode([Feature].self, from: Data(encodedOnly.value.utf8)).count == 3)
    }

    @Test(
        "formEncoded(from:count:) is encode(from:count:) percent-encoded, byte for byte",
        arguments: [
            (GeometryType?.some(.point), Extent?.none, true),
            (GeometryType?.some(.point), Extent?.some(Extent(xmin: -20_037_508.34, ymin: -0.5, xmax: 20_037_508.34, ymax: 0.5)), true),
            (GeometryType?.none, Extent?.none, true),
            (GeometryType?.some(.point), Extent?.none, false),
        ])
    func formEncoded(geometry: GeometryType?, extent: Extent?, fastFieldsOnly: Bool) {
        var layer = Self.layer(geometry: geometry, extent: extent)
        // Field names that need JSON escapes or are not ASCII take the slow path, their values written by JSONWriter.
        if fastFieldsOnly { layer.fields.removeAll { $0.name == "naïve" || $0.name == "quo\"te" } }
        let generator = FeatureGenerator(layer: layer, seed: 7)
        #expect(generator.fieldPlans.contains { if case .slow = $0.value { true } else { false } } == !fastFieldsOnly)
        for start in [0, 1, 997, 1 << 40] {
            for count in [1, 25] {
                let json = generator.encode(from: start, count: count)
                let form = generator.formEncoded(from: start, count: count)
                #expect(form == FormEncoding.encodedValue(json))
                #expect(FormEncoding.decodedValue(form) == json)
            }
        }
    }

    @Test("a body with form-encoded adds is the body of the same edits' form fields")
    func formBody() throws {
        let generator = FeatureGenerator(layer: Self.layer(geometry: .point, extent: nil), seed: 3)
        let json = generator.encode(from: 0, count: 4)
        let bodies = [
            LayerEdits(encodedAdds: EncodedFeatures(formEncoded: FormEncoding.encodedValue(json), count: 4)),
            LayerEdits(
                updates: generator.features(from: 4, count: 1), deletes: [7, 8],
                encodedAdds: EncodedFeatures(formEncoded: FormEncoding.encodedValue(json), count: 4)),
            // Adds of both kinds: one array, made through the JSON text.
            LayerEdits(
                adds: generator.features(from: 9, count: 2), encodedAdds: EncodedFeatures(formEncoded: FormEncoding.encodedValue(json), count: 4)),
        ]
        for (edits, options) in zip(
            bodies, [ApplyEditsOptions(), ApplyEditsOptions(rollbackOnFailure: false, useGlobalIds: true), ApplyEditsOptions(returnEditMoment: true)])
        {
            var asText = edits
            asText.encodedAdds = EncodedFeatures(json: json, count: 4)
            #expect(edits.formBody(options: options) == FormEncoding.encodedBytes(asText.formFields(options: options)))
            #expect(edits.formFields(options: options) == asText.formFields(options: options))
        }
        // Encoded adds alone are written straight into the body, under every option.
        let addsOnly = LayerEdits(encodedAdds: EncodedFeatures(formEncoded: FormEncoding.encodedValue(json), count: 4))
        var addsOnlyAsText = addsOnly
        addsOnlyAsText.encodedAdds = EncodedFeatures(json: json, count: 4)
        for rollback in [true, false] {
            for useGlobalIds in [true, false] {
                for moment in [true, false] {
                    let options = ApplyEditsOptions(rollbackOnFailure: rollback, useGlobalIds: useGlobalIds, returnEditMoment: moment)
                    #expect(addsOnly.formBody(options: options) == FormEncoding.encodedBytes(addsOnlyAsText.formFields(options: options)))
                }
            }
        }
    }

    @Test("GlobalIDs are canonical version-4 UUIDs in braces")
    func globalIds() {
        var random = SplitMix64(seed: 5)
        for _ in 0..<100 {
            let id = GlobalID.make(using: &random)
            #expect(GlobalID.normalized(id) == id)
            let parts = id.dropFirst().dropLast().split(separator: "-").map(\.count)
            #expect(parts == [8, 4, 4, 4, 12] && id.first == "{" && id.last == "}")
            #expect(Array(id.utf8)[15] == UInt8(ascii: "4"))
            #expect("89AB".contains(id[id.index(id.startIndex, offsetBy: 20)]))
        }
    }
}

/// The generator's decimal writer against Swift's own.
@Suite struct DecimalWriterTests {
    @Test("every number of digits, both signs and the extremes read as String(_:) writes them")
    func decimals() {
        var values: [Int64] = [0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, Int64.max, Int64.min, Int64.min + 1, -1, -10, -99, -100]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -(power - 1), -power]
        }
        var random = SplitMix64(seed: 5)
        for _ in 0..<2_000 { values.append(Int64(bitPattern: random.next()) >> Int64(random.next() % 63)) }
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 20)
        defer { buffer.deallocate() }
        for value in values {
            let length = ByteWriter.writeDecimal(value, at: buffer)
            #expect(String(decoding: UnsafeBufferPointer(start: buffer, count: length), as: UTF8.self) == String(value))
        }
    }
}
