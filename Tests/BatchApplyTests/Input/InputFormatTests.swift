import BatchApply
import FeatureModel
import Foundation
import Testing

@Suite struct InputFormatTests {
    @Test(
        "extensions name their format",
        arguments: [
            ("a.geojson", InputFormat.geojson), ("a.GEOJSONL", .geojsonSeq), ("a.geojsons", .geojsonSeq), ("a.ndjson", .geojsonSeq),
            ("a.jsonl", .geojsonSeq), ("a.csv", .csv), ("a.gpkg", .geoPackage),
        ])
    func byExtension(path: String, format: InputFormat) throws {
        #expect(try InputFormat.detect(path: path) == format)
    }

    @Test(
        ".json files are told apart by their content",
        arguments: [
            (#"{"type": "FeatureCollection", "features": []}"#, InputFormat.geojson),
            (#"{"type":"Feature","properties":{"attributes":1},"geometry":null}"#, .geojson),
            (#"{"geometryType": "esriGeometryPoint", "features": [{"attributes": {"type": "Feature"}}]}"#, .esriJSON),
            (#"{"adds": [], "deletes": [1]}"#, .esriJSON),
            (#"[{"id": 0, "updates": []}]"#, .esriJSON),
            ("{\"type\": \"Feature\", \"properties\": {}, \"geometry\": null}\n{\"type\": \"Feature\"", .geojsonSeq),
            ("{\"attributes\": {\"A\": 1}}\r\n{\"attributes\": {\"A\": 2}}\r\n", .geojsonSeq),
        ])
    func sniffsJSON(text: String, format: InputFormat) throws {
        let path = try InputTestSupport.write(text, extension: "json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try InputFormat.detect(path: path) == format)
    }

    @Test("an unknown extension or unrecognisable JSON is a setup error")
    func unknown() throws {
        #expect(throws: InputSetupError.self) { try InputFormat.detect(path: "a.shp") }
        let path = try InputTestSupport.write(#"{"rows": []}"#, extension: "json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: InputSetupError.self) { try InputFormat.detect(path: path) }
    }

    @Test("InputFile.open reads a file through the detected reader")
    func opensByPath() throws {
        let path = try InputTestSupport.write("a,b\n1,2\n", extension: "csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = try InputFile.open(path: path)
        #expect(reader.readAll().edits.map(\.feature.attributes) == [["a": "1", "b": "2"]])
        #expect(throws: InputSetupError.self) { _ = try InputFile.open(path: path + ".missing.csv") }
    }
}
