import BatchApply
import FeatureModel
import Testing

@Suite struct CSVReaderTests {
    private func read(
        _ text: String, csv: CSVOptions = CSVOptions(), kindField: String? = nil, chunkSize: Int = 4
    ) -> (
        edits: [InputEdit], problems: [InputProblem]
    ) {
        var reader = CSVReader(bytes: Array(text.utf8), options: InputTestSupport.options(chunkSize: chunkSize, kindField: kindField, csv: csv))
        return reader.readAll()
    }

    @Test("quoted fields, doubled quotes, CRLF and line breaks inside quotes; lines and sources of each row")
    func quoting() throws {
        let text = "name,note,n\r\n\"Smith, J\",\"said \"\"hi\"\"\",1\r\nplain,\"two\r\nlines\",\r\n\r\nlast,,3"
        let (edits, problems) = read(text)
        #expect(problems.isEmpty)
        try #require(edits.count == 3)
        #expect(edits[0].feature.attributes == ["name": "Smith, J", "note": "said \"hi\"", "n": "1"])
        #expect(edits[1].feature.attributes == ["name": "plain", "note": "two\r\nlines", "n": nil])
        #expect(edits[2].feature.attributes == ["name": "last", "note": nil, "n": "3"])
        #expect(edits.map(\.position.line) == [2, 3, 6])
        #expect(edits[0].source == "\"Smith, J\",\"said \"\"hi\"\"\",1")
        #expect(edits[1].source == "plain,\"two\r\nlines\",")
    }

    @Test("the header is kept for the rejects file and a BOM is skipped")
    func header() {
        var reader = CSVReader(bytes: Array("\u{FEFF}a,b\n1,2\n".utf8))
        _ = reader.readAll()
        #expect(reader.header == "a,b")
        let opened: any EditReader = reader
        #expect(opened.rejectsHeader == "a,b")
    }

    @Test("mapped columns take the field's name; unmapped keep their own")
    func mapping() throws {
        let csv = CSVOptions(mapping: try CSVOptions.parseMapping("name=NAME, st = STATE"))
        let (edits, _) = read("name,st,zip\nA,CA,9\n", csv: csv)
        #expect(edits.first?.feature.attributes == ["NAME": "A", "STATE": "CA", "zip": "9"])
    }

    @Test(
        "a --map value with a mistake says which pair is wrong",
        arguments: [
            ("name", "has no '='"), ("=NAME", "no column"), ("a=", "no field"), ("a=X,a=Y", "mapped twice"), ("a=X,b=x", "already the target"),
        ])
    func mappingErrors(text: String, expected: String) {
        #expect {
            _ = try CSVOptions.parseMapping(text)
        } throws: { error in
            (error as? InputSetupError)?.reason.contains(expected) == true
        }
    }

    @Test("x/y columns make points that are not attributes; a non-number names its line and column")
    func xy() throws {
        let text = "id,lon,lat\n1,7.5,47.1\n2,east,47\n3,,\n"
        let (edits, problems) = read(text, csv: CSVOptions(x: "lon", y: "lat", wkid: 2056))
        #expect(edits.map(\.feature.attributes) == [["id": "1"], ["id": "3"]])
        #expect(edits[0].feature.geometry == .point(x: 7.5, y: 47.1, spatialReference: SpatialReference(wkid: 2056)))
        #expect(edits[1].feature.geometry == nil)
        let problem = try #require(problems.first)
        #expect(problem.position.line == 3)
        #expect(problem.reason == "column 'lon': 'east' is not a number")
        #expect(problem.description.hasPrefix("line 3, record 2"))
    }

    @Test("a WKT column makes geometry like GeoJSON, and a bad one names the column")
    func wkt() throws {
        let text = "id,shape\n1,\"POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))\"\n2,POINT EMPTY\n3,\"LINESTRING (0 0)\"\n4,CIRCLE (1 2)\n"
        let (edits, problems) = read(text, csv: CSVOptions(wkt: "shape"))
        try #require(edits.count == 2)
        let rings = try #require(InputTestSupport.rings(edits[0].feature.geometry))
        #expect(SimpleGeometry.signedDoubleArea(rings[0]) < 0)
        #expect(edits[1].feature.geometry == nil)
        #expect(problems.map(\.position.line) == [4, 5])
        #expect(problems[0].reason.hasPrefix("column 'shape': "))
        #expect(problems[1].reason.contains("CIRCLE"))
    }

    @Test("rows with the wrong number of fields, a missing geometry column and an open quote are problems")
    func structuralProblems() {
        #expect(read("a,b\n1\n1,2\n").problems.first?.reason == "the row has 1 fields; the header has 2")
        #expect(read("a,b\n1,2\n", csv: CSVOptions(x: "lon", y: "lat")).problems.first?.reason.contains("no x column 'lon'") == true)
        let open = read("a\n\"never closed\n1\n")
        #expect(open.problems.first?.position.line == 2)
        #expect(open.problems.first?.reason.contains("never closed") == true)
        #expect(read("").problems.first?.reason.contains("header row is required") == true)
    }

    @Test("a kind column gives each row its kind")
    func kindColumn() {
        let (edits, _) = read("_edit,OBJECTID\nupdate,3\n,\ndelete,4\n", kindField: "_edit")
        #expect(edits.map(\.kind) == [.update, .add, .delete])
    }
}
