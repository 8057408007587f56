import FeatureModel
import Foundation
import Testing

@Suite struct JSONWriterTests {
    static let tricky = [
        "", "plain", "quote \" and backslash \\", "line\nbreak\ttab\rreturn", "control \u{01}\u{1F}", "ünïcödé ✓ 🌲",
        "slash / and <tag>", "percent % plus + amp & equals =",
    ]

    @Test("features written by JSONWriter decode back to equal values")
    func featuresRoundTrip() throws {
        var features: [Feature] = []
        for (index, text) in Self.tricky.enumerated() {
            features.append(
                Feature(
                    attributes: [
                        "name": .string(text), "count": .int(Int64(index) * 1_000_000_007), "ratio": .double((Double(index) + 0.5) / 7),
                        "tiny": .double(1e-7), "huge": .double(1.5e300), "none": .null, "flag": .bool(index % 2 == 0),
                        "negative": .int(-42), "list": [1, "two", 3.5, nil], "nested": ["a": ["b": true]],
                    ],
                    geometry: .point(x: -118.123456, y: 33.5, spatialReference: .wgs84)))
        }
        features.append(Feature(attributes: [:], geometry: .polygon(rings: [[[0, 0], [1, 0], [1, 1], [0, 0]]])))
        features.append(Feature(attributes: ["t": "table row"]))
        features.append(Feature(attributes: [:], geometry: .envelope(xmin: 1, ymin: 2, xmax: 3, ymax: 4, spatialReference: .webMercator)))
        features.append(Feature(attributes: [:], geometry: .multipoint(points: [[1, 2, 3]])))
        features.append(Feature(attributes: [:], geometry: .polyline(paths: [[[1, 2], [3, 4]]])))
        features.append(Feature(attributes: [:], geometry: .point(x: 1, y: 2, z: 3)))
        let text = JSONWriter.string(features: features)
        let decoded = try WireJSON.decode([Feature].self, from: text)
        #expect(decoded == features)
    }

    @Test("doubles keep a decimal point and integers stay exact")
    func numberKinds() {
        var writer = JSONWriter()
        writer.write([.double(2.0), .int(2), .double(0.1), .int(-9_007_199_254_740_993)] as JSONValue)
        #expect(writer.string == "[2.0,2,0.1,-9007199254740993]")
    }

    @Test("non-finite doubles become null")
    func nonFinite() {
        var writer = JSONWriter()
        writer.write([.double(.nan), .double(.infinity)] as JSONValue)
        #expect(writer.string == "[null,null]")
    }

    @Test("form encoding of JSON text round-trips byte for byte")
    func formRoundTrip() {
        let json = JSONWriter.string(features: Self.tricky.map { Feature(attributes: ["s": .string($0)]) })
        let fields = [FormField("f", "json"), FormField("adds", json), FormField("empty", ""), FormField("ü=&", "a+b c")]
        #expect(FormEncoding.decode(FormEncoding.encode(fields)) == fields)
        #expect(FormEncoding.decode(utf8: FormEncoding.encodedBytes(fields)) == fields)
        #expect(FormEncoding.decode("a=1&&b=%41%zz%4&c") == [FormField("a", "1"), FormField("b", "A%zz%4"), FormField("c", "")])
    }

    static let result = ApplyEditsResult(
        addResults: [
            EditResult(objectId: 618, globalId: "{74100804-E229-49B8-8CDC-9B5D3EF03EDA}", success: true),
            EditResult(objectId: -1, success: false, error: EditError(code: 1000, description: "Field \"x\" is bad")),
            EditResult(objectId: nil, success: false, error: EditError(code: 1019, description: "rule", extendedCode: -2_147_207_418)),
        ],
        updateResults: [EditResult(objectId: 5, success: true)], deleteResults: [],
        attachments: AttachmentEditResults(addResults: [EditResult(objectId: 1, globalId: "{A}", success: true)]),
        editMoment: 1_690_000_000_000)

    @Test("applyEdits answers written by JSONWriter read back equal through JSONDecoder and the fast reader")
    func applyEditsRoundTrip() throws {
        var writer = JSONWriter()
        writer.write(Self.result)
        #expect(try WireJSON.decode(ApplyEditsResult.self, from: writer.bytes) == Self.result)
        #expect(try ApplyEditsResult(json: JSONReader.parse(bytes: writer.bytes)) == Self.result)
        let withId = ApplyEditsResult(id: 3, addResults: [], editMoment: nil)
        var second = JSONWriter()
        second.write(withId)
        #expect(second.string == #"{"id":3,"addResults":[],"updateResults":[],"deleteResults":[]}"#)
        #expect(try ApplyEditsResult(json: JSONReader.parse(second.string)) == withId)
    }

    @Test("the fast reader names the member of the wrong shape")
    func fastReaderErrors() throws {
        #expect(throws: WireDecodingError(path: "addResults[1].success", expected: "true or false")) {
            try ApplyEditsResult(json: JSONReader.parse(#"{"addResults":[{"success":true},{"objectId":1}]}"#))
        }
        #expect(throws: WireDecodingError(path: "updateResults", expected: "an array")) {
            try ApplyEditsResult(json: JSONReader.parse(#"{"updateResults":{}}"#))
        }
        #expect(try ApplyEditsResult(json: JSONReader.parse("{}")) == ApplyEditsResult())
    }
}
