import BatchApply
import FeatureModel
import Testing

/// Records too large to hold (issue 32, item 5): read past in bounded memory and reported at their position, the
/// records around them read.
@Suite struct RecordSizeLimitTests {
    /// Options with a small record size limit and small chunks, so a record crosses chunks on its way past the limit.
    static func options(limit: Int, chunkSize: Int = 16) -> InputOptions {
        var options = InputOptions(maxRecordSize: limit)
        options.chunkSize = chunkSize
        return options
    }

    static let point = #"{"type": "Feature", "properties": {"n": 1}, "geometry": {"type": "Point", "coordinates": [1, 2]}}"#
    static func bigFeature(_ size: Int) -> String {
        #"{"type": "Feature", "properties": {"text": ""# + String(repeating: "x", count: size) + #""}, "geometry": null}"#
    }

    @Test("a GeoJSON feature over the limit is a problem at its line and number; the features around it are read", arguments: [1, 16, 4096])
    func geoJSON(chunkSize: Int) throws {
        let text = "{\"type\": \"FeatureCollection\", \"features\": [\n\(Self.point),\n\(Self.bigFeature(300)),\n\(Self.point)\n]}"
        var reader = GeoJSONReader(bytes: Array(text.utf8), options: Self.options(limit: 200, chunkSize: chunkSize))
        let (edits, problems) = reader.readAll()
        #expect(edits.map(\.position.index) == [0, 2])
        let problem = try #require(problems.first)
        #expect(problems.count == 1)
        #expect(problem.position == InputPosition(index: 1, line: 3))
        #expect(problem.reason.contains("more than the record size limit of 200 bytes") && problem.reason.contains("--max-record-size"), "\(problem)")
        #expect(problem.source == nil, "the record's text is not held")
    }

    @Test("an unterminated GeoJSON value ends the document without holding it: the problem names where the value started")
    func unterminated() throws {
        let open = #"{"type": "Feature", "properties": {"text": ""# + String(repeating: "y", count: 5000)
        let text = "{\"type\": \"FeatureCollection\", \"features\": [\n\(Self.point),\n" + open
        var reader = GeoJSONReader(bytes: Array(text.utf8), options: Self.options(limit: 200))
        let (edits, problems) = reader.readAll()
        #expect(edits.count == 1)
        #expect(problems.count == 1 && problems[0].reason.contains("ends inside the value that starts on line 3"), "\(problems)")
    }

    @Test("a single Feature file over the limit is a problem, not a file read whole")
    func singleFeature() {
        var reader = GeoJSONReader(bytes: Array(Self.bigFeature(500).utf8), options: Self.options(limit: 100))
        let (edits, problems) = reader.readAll()
        #expect(edits.isEmpty && problems.count == 1 && problems[0].reason.contains("record size limit of 100 bytes"), "\(problems)")
    }

    @Test("a collection member over the limit ends the document with the member named")
    func member() {
        let text = "{\"type\": \"FeatureCollection\", \"name\": \"" + String(repeating: "n", count: 500) + "\", \"features\": [\(Self.point)]}"
        var reader = GeoJSONReader(bytes: Array(text.utf8), options: Self.options(limit: 200))
        let (_, problems) = reader.readAll()
        #expect(problems.count == 1 && problems[0].reason.contains("\"name\" is larger than the record size limit of 200 bytes"), "\(problems)")
    }

    @Test("a .geojsonl line over the limit is a problem at its line; the next lines are read")
    func geoJSONSeq() throws {
        let text = "\(Self.point)\n\(Self.bigFeature(300))\n\(Self.point)\n"
        var reader = GeoJSONSeqReader(bytes: Array(text.utf8), options: Self.options(limit: 200))
        let (edits, problems) = reader.readAll()
        #expect(edits.map(\.position.line) == [1, 3])
        #expect(problems.map(\.position) == [InputPosition(index: 1, line: 2)])
        #expect(problems.first?.reason.contains("record size limit of 200 bytes") == true)
    }

    @Test("an Esri JSON edit over the limit is a problem at its line; the next edit is read")
    func esriJSON() {
        let big = #"{"attributes": {"text": ""# + String(repeating: "z", count: 300) + #""}}"#
        let text = "{\"adds\": [\n{\"attributes\": {\"n\": 1}},\n\(big),\n{\"attributes\": {\"n\": 3}}\n]}"
        var reader = EsriJSONReader(bytes: Array(text.utf8), options: Self.options(limit: 200))
        let (edits, problems) = reader.readAll()
        #expect(edits.map(\.position.line) == [2, 4])
        #expect(problems.map(\.position) == [InputPosition(index: 1, line: 3)])
    }

    @Test("a CSV row over the limit, quoted line breaks and quotes inside, is a problem at its line; the next row is read", arguments: [1, 5, 4096])
    func csv(chunkSize: Int) throws {
        let long = "\"" + String(repeating: "a,\"\"b\"\"\n", count: 40) + "\""
        let text = "name,n\nfirst,1\n\(long),2\nlast,3\n"
        var reader = CSVReader(bytes: Array(text.utf8), options: Self.options(limit: 100, chunkSize: chunkSize))
        let (edits, problems) = reader.readAll()
        #expect(edits.map(\.feature.attributes) == [["name": "first", "n": "1"], ["name": "last", "n": "3"]])
        #expect(edits.map(\.position.line) == [2, 44])
        #expect(problems.map(\.position) == [InputPosition(index: 1, line: 3)])
        #expect(problems.first?.reason.contains("record size limit of 100 bytes") == true, "\(problems)")
    }

    @Test("a CSV header over the limit ends the file with that problem")
    func csvHeader() {
        var reader = CSVReader(bytes: Array((String(repeating: "c", count: 300) + "\n1\n").utf8), options: Self.options(limit: 100))
        let (edits, problems) = reader.readAll()
        #expect(edits.isEmpty && problems.count == 1 && problems[0].position.line == 1, "\(problems)")
    }

    @Test("a record exactly at the limit is read")
    func atTheLimit() throws {
        let line = Self.point
        var reader = GeoJSONSeqReader(bytes: Array((line + "\n").utf8), options: Self.options(limit: line.utf8.count))
        let (edits, problems) = reader.readAll()
        #expect(edits.count == 1 && problems.isEmpty, "\(problems)")
    }
}
