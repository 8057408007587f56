import BatchApply
import FeatureModel
import Testing

@Suite struct EsriJSONReaderTests {
    private func read(_ text: String, kindField: String? = nil) -> (edits: [InputEdit], problems: [InputProblem]) {
        var reader = EsriJSONReader(bytes: Array(text.utf8), options: InputTestSupport.options(chunkSize: 3, kindField: kindField))
        return reader.readAll()
    }

    @Test("a feature set: adds, with the set's spatial reference on geometries that have none")
    func featureSet() throws {
        let text = """
            {"objectIdFieldName": "OBJECTID", "geometryType": "esriGeometryPoint",
             "spatialReference": {"wkid": 102100, "latestWkid": 3857},
             "fields": [{"name": "NAME", "type": "esriFieldTypeString"}],
             "features": [
               {"attributes": {"NAME": "a {b}"}, "geometry": {"x": 1, "y": 2}},
               {"attributes": {"NAME": "c"}, "geometry": {"x": 3, "y": 4, "spatialReference": {"wkid": 4326}}},
               {"attributes": {"NAME": "d"}, "geometry": {"paths": [[[0, 0], [1, 1]]]}}
             ]}
            """
        let (edits, problems) = read(text)
        try #require(edits.count == 2)
        #expect(edits.map(\.kind) == [.add, .add])
        #expect(edits[0].feature.geometry == .point(x: 1, y: 2, spatialReference: SpatialReference(wkid: 102100, latestWkid: 3857)))
        #expect(edits[1].feature.geometry == .point(x: 3, y: 4, spatialReference: SpatialReference(wkid: 4326)))
        #expect(edits.map(\.position.line) == [5, 6])
        #expect(problems.map(\.position.line) == [7])
        #expect(problems.first?.reason.contains("geometryType is esriGeometryPoint") == true)
    }

    @Test("an applyEdits body: adds, updates, and deletes by object ID, GlobalID or a comma list")
    func applyEditsBody() throws {
        let text = """
            {"adds": [{"attributes": {"A": 1}}],
             "updates": [{"attributes": {"OBJECTID": 5, "A": 2}, "geometry": {"rings": [[[0,0],[0,1],[1,1],[0,0]]]}}],
             "deletes": [7, "{0a1b2c3d-0000-4000-8000-00000000000f}", "8", "nope"]}
            """
        let (edits, problems) = read(text)
        #expect(edits.map(\.kind) == [.add, .update, .delete, .delete, .delete])
        #expect(edits[1].feature.attributes == ["OBJECTID": 5, "A": 2])
        #expect(edits[2].feature.attributes == [EsriJSONFeature.objectIdKey: 7])
        #expect(edits[3].feature.attributes == [EsriJSONFeature.globalIdKey: "{0A1B2C3D-0000-4000-8000-00000000000F}"])
        #expect(edits[4].feature.attributes == ["OBJECTID": 8])
        #expect(edits[2].source == "7")
        #expect(problems.count == 1)
        #expect(problems.first?.position.line == 3)

        let list = read(#"{"deletes": "1,2, 3"}"#)
        #expect(list.edits.map(\.feature.attributes) == [["OBJECTID": 1], ["OBJECTID": 2], ["OBJECTID": 3]])
    }

    @Test("service-level edits: each edit's layer is its entry's id, wherever the id stands")
    func serviceLevel() {
        let text = """
            [{"id": 0, "adds": [{"attributes": {"A": 1}}], "deletes": [3]},
             {"updates": [{"attributes": {"OBJECTID": 4}}], "id": 2},
             {"adds": [{"attributes": {"A": 9}}]}]
            """
        let (edits, problems) = read(text)
        #expect(edits.map(\.layer) == [0, 0, 2])
        #expect(edits.map(\.kind) == [.add, .delete, .update])
        #expect(problems.count == 1)
        #expect(problems.first?.reason.contains("no numeric \"id\"") == true)
    }

    @Test("a kind field applies to a feature set's features")
    func kindFieldInFeatureSet() {
        let (edits, _) = read(#"{"features": [{"attributes": {"op": "update", "OBJECTID": 1}}]}"#, kindField: "op")
        #expect(edits.map(\.kind) == [.update])
        #expect(edits.first?.feature.attributes == ["OBJECTID": 1])
    }

    @Test("hasM drops measures; hasZ keeps z")
    func measures() throws {
        let text = """
            {"features": [{"attributes": {}, "geometry": {"hasM": true, "paths": [[[0, 0, 9], [1, 1, 9]]]}},
                          {"attributes": {}, "geometry": {"hasZ": true, "hasM": true, "points": [[0, 0, 5, 9]]}}]}
            """
        let (edits, problems) = read(text)
        #expect(problems.isEmpty)
        #expect(edits.map(\.feature.geometry) == [.polyline(paths: [[[0, 0], [1, 1]]]), .multipoint(points: [[0, 0, 5]])])
    }

    @Test("a document with no edit arrays is a problem")
    func noArrays() {
        let (edits, problems) = read(#"{"fields": []}"#)
        #expect(edits.isEmpty)
        #expect(problems.first?.reason.contains("found no") == true)
    }
}
