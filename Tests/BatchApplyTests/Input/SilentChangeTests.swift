import BatchApply
import FeatureModel
import Testing

/// Inputs that used to be changed or emptied silently (issue 32, item 7): each is now a problem with its reason.
@Suite struct SilentChangeTests {
    @Test(
        "a FeatureCollection without a features array is a problem, not 0 of 0",
        arguments: [
            (#"{"type": "FeatureCollection"}"#, "no \"features\" array"),
            (#"{"type": "FeatureCollection", "Features": []}"#, "\"Features\" but no \"features\""),
            (#"{"type": "FeatureCollection", "features": {}}"#, "\"features\" is an object"),
            (#"{"type": "FeatureCollection", "features": 3}"#, "\"features\" is not an array"),
        ])
    func missingFeatures(text: String, reason: String) {
        var reader = GeoJSONReader(bytes: Array(text.utf8), options: InputTestSupport.options())
        let (edits, problems) = reader.readAll()
        #expect(edits.isEmpty && problems.count == 1 && problems[0].reason.contains(reason), "\(problems)")
    }

    @Test("an empty features array is still an empty collection")
    func emptyFeatures() {
        var reader = GeoJSONReader(bytes: Array(#"{"type": "FeatureCollection", "features": []}"#.utf8), options: InputTestSupport.options())
        let (edits, problems) = reader.readAll()
        #expect(edits.isEmpty && problems.isEmpty)
    }

    @Test("invalid UTF-8 is a problem naming the byte, in GeoJSON, newline-delimited GeoJSON and CSV")
    func invalidUTF8() {
        let bad: [UInt8] = [0xC3, 0x28]
        let feature = Array(#"{"type": "Feature", "properties": {"name": ""#.utf8) + bad + Array(#""}, "geometry": null}"#.utf8)
        let good = Array(#"{"type": "Feature", "properties": {"name": "Zürich"}, "geometry": null}"#.utf8)
        var geoJSON = GeoJSONReader(
            bytes: Array(#"{"type": "FeatureCollection", "features": ["#.utf8) + good + [UInt8(ascii: ",")] + feature + Array("]}".utf8),
            options: InputTestSupport.options())
        var lines = GeoJSONSeqReader(bytes: good + [0x0A] + feature + [0x0A], options: InputTestSupport.options())
        var csv = CSVReader(bytes: Array("name\nZürich\n".utf8) + bad + [0x0A], options: InputTestSupport.options())
        let results: [(String, (edits: [InputEdit], problems: [InputProblem]))] = [
            ("geojson", geoJSON.readAll()), ("geojsonl", lines.readAll()), ("csv", csv.readAll()),
        ]
        for (name, (edits, problems)) in results {
            #expect(edits.map(\.feature.attributes["name"]) == ["Zürich"], "\(name)")
            let reason = problems.first?.reason ?? ""
            #expect(problems.count == 1 && reason.contains("not valid UTF-8") && reason.contains("0xC3"), "\(name): \(problems)")
        }
    }
}
