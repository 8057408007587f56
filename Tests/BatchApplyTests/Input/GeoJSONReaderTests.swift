import BatchApply
import FeatureModel
import Foundation
import Testing

@Suite struct GeoJSONReaderTests {
    static let collection = """
        {
          "type": "FeatureCollection",
          "name": "parks {with [brackets]}",
          "features": [
            {"type": "Feature", "properties": {"NAME": "Brace { and ] \\" quote", "N": 1}, "geometry": {"type": "Point", "coordinates": [1, 2]}},
            {"type": "Feature",
             "properties": {"NAME": "second", "N": 2.5, "OK": true, "NOTE": null},
             "geometry": null},
            {"type": "Feature", "properties": {"NAME": "\\\\"}, "geometry": {"type": "Point", "coordinates": [3, 4]}}
          ]
        }
        """

    @Test("features come out one by one with their lines, whatever the chunk size", arguments: [1, 2, 3, 7, 64, 65_536])
    func splitsAcrossChunks(chunkSize: Int) throws {
        var reader = GeoJSONReader(bytes: Array(Self.collection.utf8), options: InputTestSupport.options(chunkSize: chunkSize))
        let (edits, problems) = reader.readAll()
        #expect(problems.isEmpty)
        try #require(edits.count == 3)
        #expect(edits.map(\.position.line) == [5, 6, 9])
        #expect(edits.map(\.position.index) == [0, 1, 2])
        #expect(edits.allSatisfy { $0.kind == .add && $0.layer == nil })
        #expect(edits[0].feature.attributes["NAME"] == "Brace { and ] \" quote")
        #expect(edits[0].feature.geometry == .point(x: 1, y: 2, spatialReference: SpatialReference(wkid: 4326)))
        #expect(edits[1].feature.attributes == ["NAME": "second", "N": 2.5, "OK": true, "NOTE": nil])
        #expect(edits[1].feature.geometry == nil)
        #expect(edits[2].feature.attributes["NAME"] == "\\")
        #expect(edits[0].source.hasPrefix("{\"type\": \"Feature\""))
        #expect(edits[0].source.hasSuffix("[1, 2]}}"))
    }

    @Test("a file is read through its handle in small chunks, byte-order mark skipped")
    func fromFile() throws {
        let path = try InputTestSupport.write("\u{FEFF}" + Self.collection, extension: "geojson")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = try GeoJSONReader(path: path, options: InputTestSupport.options(chunkSize: 5))
        let (edits, problems) = reader.readAll()
        #expect(problems.isEmpty)
        #expect(edits.map(\.position.line) == [5, 6, 9])
        #expect(throws: InputSetupError.self) { _ = try GeoJSONReader(path: path + ".missing") }
    }

    @Test("a crs member after the features still applies to them")
    func crsAfterFeatures() {
        let text = """
            {"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [1, 2]}}],
             "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::3857"}}}
            """
        var reader = GeoJSONReader(bytes: Array(text.utf8), options: InputTestSupport.options())
        let (edits, _) = reader.readAll()
        #expect(InputTestSupport.spatialReference(edits.first?.feature.geometry) == SpatialReference(wkid: 3857))
    }

    @Test("a bad feature is a problem with its line; the others are read")
    func badFeatureInTheMiddle() throws {
        let text = """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"A": 1}, "geometry": null},
              {"type": "Feature", "properties": {"A": {"nested": 1}}, "geometry": null},
              {"type": "Feature", "properties": {"A": tru}, "geometry": null},
              {"type": "Feature", "properties": {"A": 4},
               "geometry": {"type": "GeometryCollection", "geometries": []}},
              {"type": "Feature", "properties": {"A": 5}, "geometry": null}
            ]}
            """
        var reader = GeoJSONReader(bytes: Array(text.utf8), options: InputTestSupport.options())
        let (edits, problems) = reader.readAll()
        #expect(edits.map(\.feature.attributes["A"]) == [1, 5])
        try #require(problems.count == 3)
        #expect(problems.map(\.position.line) == [3, 4, 5])
        #expect(problems[0].reason.contains("nested object"))
        #expect(problems[1].reason.contains("invalid JSON"))
        #expect(problems[2].reason.contains("GeometryCollection"))
        #expect(problems[2].source?.contains("\"A\": 4") == true)
    }

    @Test("a document cut short ends with a problem on the line where it broke")
    func truncated() throws {
        let text =
            "{\"type\": \"FeatureCollection\", \"features\": [\n{\"type\": \"Feature\", \"properties\": {}, \"geometry\": null},\n{\"type\": \"Feat"
        var reader = GeoJSONReader(bytes: Array(text.utf8), options: InputTestSupport.options())
        let (edits, problems) = reader.readAll()
        #expect(edits.count == 1)
        let problem = try #require(problems.first)
        #expect(problems.count == 1)
        #expect(problem.reason.contains("starts on line 3"))
        #expect(reader.next() == nil)
    }

    @Test("a single Feature document is one record")
    func singleFeature() {
        let text = "\u{FEFF}{\"type\": \"Feature\", \"properties\": {\"A\": 1}, \"geometry\": {\"type\": \"Point\", \"coordinates\": [1, 2]}}"
        var reader = GeoJSONReader(bytes: Array(text.utf8), options: InputTestSupport.options())
        let (edits, problems) = reader.readAll()
        #expect(problems.isEmpty)
        #expect(edits.map(\.feature.attributes) == [["A": 1]])
    }

    @Test("features one per line in a GeoJSON document are one problem that names the line formats")
    func linesInADocument() {
        let line = #"{"type": "Feature", "properties": {}, "geometry": null}"#
        var reader = GeoJSONReader(bytes: Array((line + "\n" + line).utf8), options: InputTestSupport.options())
        let (edits, problems) = reader.readAll()
        #expect(edits.isEmpty)
        #expect(problems.count == 1)
        #expect(problems.first?.reason.contains(".geojsonl or .ndjson") == true)
    }

    @Test("a kind field makes updates and deletes and leaves the attributes")
    func kindField() {
        let text = """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"_edit": "update", "OBJECTID": 7}, "geometry": null},
              {"type": "Feature", "properties": {"_edit": "DELETE", "OBJECTID": 8}, "geometry": null},
              {"type": "Feature", "properties": {"OBJECTID": 9}, "geometry": null},
              {"type": "Feature", "properties": {"_edit": "upsert"}, "geometry": null}
            ]}
            """
        var reader = GeoJSONReader(bytes: Array(text.utf8), options: InputTestSupport.options(kindField: "_edit"))
        let (edits, problems) = reader.readAll()
        #expect(edits.map(\.kind) == [.update, .delete, .add])
        #expect(edits.map(\.feature.attributes) == [["OBJECTID": 7], ["OBJECTID": 8], ["OBJECTID": 9]])
        #expect(problems.map(\.position.line) == [5])
        #expect(problems.first?.reason.contains("expected add, update or delete") == true)
    }

    @Test("a document that is not GeoJSON is one problem")
    func notGeoJSON() {
        var reader = GeoJSONReader(bytes: Array("{\"type\": \"Topology\"}".utf8))
        let (edits, problems) = reader.readAll()
        #expect(edits.isEmpty)
        #expect(problems.first?.reason.contains("Topology") == true)
    }
}

@Suite struct GeoJSONSeqReaderTests {
    @Test("NDJSON with a bad line in the middle: the other lines are still read, each with its line")
    func badLine() throws {
        let text = """
            {"type": "Feature", "properties": {"A": 1}, "geometry": {"type": "Point", "coordinates": [1, 2]}}

            {"type": "Feature", "properties": {"A": 2}, "geometry": {"type": "Point", "coordinates": [1, 
            {"type": "Feature", "properties": {"A": 3}, "geometry": null}\r
            \u{1E}{"attributes": {"A": 4}, "geometry": {"x": 5, "y": 6}}
            """
        var reader = GeoJSONSeqReader(bytes: Array(text.utf8), options: InputTestSupport.options(chunkSize: 5))
        let (edits, problems) = reader.readAll()
        #expect(edits.map(\.feature.attributes["A"]) == [1, 3, 4])
        #expect(edits.map(\.position.line) == [1, 4, 5])
        #expect(edits.map(\.position.index) == [0, 2, 3])
        #expect(edits[2].feature.geometry == .point(x: 5, y: 6))
        #expect(edits[1].source == "{\"type\": \"Feature\", \"properties\": {\"A\": 3}, \"geometry\": null}")
        let problem = try #require(problems.first)
        #expect(problems.count == 1)
        #expect(problem.position == InputPosition(index: 1, line: 3))
        #expect(problem.reason.contains("invalid JSON"))
    }
}
