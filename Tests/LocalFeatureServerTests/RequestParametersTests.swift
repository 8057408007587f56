import FeatureModel
import NIOCore
import Testing

@testable import LocalFeatureServer

@Suite struct RequestParametersTests {
    @Test("names match case-insensitively, the body overrides the query string, blanks are absent")
    func merging() {
        var parameters = RequestParameters(FormEncoding.decode("where=1%3D1&outFields=*&f=json&objectIds="))
        parameters.merge([FormField("WHERE", "category = 1")])
        #expect(parameters["where"] == "category = 1")
        #expect(parameters["OUTFIELDS"] == "*")
        #expect(parameters["objectIds"] == nil)
        #expect(parameters["unknown"] == nil)
    }

    @Test(
        "booleans parse case-insensitively",
        arguments: [("true", true), ("True", true), ("TRUE", true), ("false", false), ("False", false), (" false ", false)]
    )
    func booleans(_ text: String, _ expected: Bool) throws {
        #expect(try RequestParameters([FormField("returnGeometry", text)]).bool("returnGeometry", default: !expected) == expected)
    }

    @Test("a missing boolean takes its default; a malformed one is a 400 naming it")
    func booleanDefaultsAndErrors() throws {
        #expect(try RequestParameters().bool("rollbackOnFailure", default: true))
        let error = #expect(throws: ServiceError.self) {
            try RequestParameters([FormField("useGlobalIds", "maybe")]).bool("useGlobalIds", default: false)
        }
        #expect(error?.error.details.first == "'useGlobalIds' parameter is invalid")
    }

    @Test("f=pjson asks for pretty JSON")
    func pretty() {
        #expect(RequestParameters([FormField("f", "pjson")]).wantsPrettyJSON)
        #expect(!RequestParameters([FormField("f", "json")]).wantsPrettyJSON)
        #expect(!RequestParameters().wantsPrettyJSON)
    }

    @Test("urlencoded bodies (and bodies without a content type) are decoded")
    func urlencoded() throws {
        let body = ByteBuffer(string: "f=json&where=name+%3D+%27A%26B%27&adds=%5B%5D")
        let fields = try FormBody.fields(contentType: "application/x-www-form-urlencoded; charset=UTF-8", body: body)
        #expect(fields == [FormField("f", "json"), FormField("where", "name = 'A&B'"), FormField("adds", "[]")])
        #expect(try FormBody.fields(contentType: nil, body: body).count == 3)
        #expect(try FormBody.fields(contentType: "application/json", body: body).isEmpty)
    }

    static func multipart(boundary: String, parts: [(name: String, filename: String?, value: String)], closed: Bool = true) -> ByteBuffer {
        var text = ""
        for part in parts {
            text += "--\(boundary)\r\n"
            text += "Content-Disposition: form-data; name=\"\(part.name)\""
            if let filename = part.filename { text += "; filename=\"\(filename)\"\r\nContent-Type: image/jpeg" }
            text += "\r\n\r\n\(part.value)\r\n"
        }
        if closed { text += "--\(boundary)--\r\n" }
        return ByteBuffer(string: text)
    }

    @Test("multipart plain fields are read; file parts are skipped")
    func multipartFields() throws {
        let adds = #"[{"attributes":{"name":"A\r\nB"},"geometry":{"x":1,"y":2}}]"#
        let body = Self.multipart(
            boundary: "----featureload42",
            parts: [("f", nil, "json"), ("adds", nil, adds), ("rollbackOnFailure", nil, "False"), ("attachment", "a.jpg", "JPEGDATA")]
        )
        let fields = try FormBody.fields(contentType: "multipart/form-data; boundary=----featureload42", body: body)
        #expect(fields == [FormField("f", "json"), FormField("adds", adds), FormField("rollbackOnFailure", "False")])
        let quoted = try FormBody.fields(contentType: #"multipart/form-data; boundary="----featureload42""#, body: body)
        #expect(quoted.count == 3)
    }

    @Test("malformed multipart bodies are 400 envelopes")
    func malformedMultipart() {
        let unterminated = Self.multipart(boundary: "b0undary", parts: [("f", nil, "json")], closed: false)
        #expect(throws: ServiceError.self) { try FormBody.fields(contentType: "multipart/form-data; boundary=b0undary", body: unterminated) }
        #expect(throws: ServiceError.self) {
            try FormBody.fields(contentType: "multipart/form-data", body: ByteBuffer(string: "--x\r\n\r\n--x--"))
        }
        #expect(throws: ServiceError.self) {
            try FormBody.fields(contentType: "multipart/form-data; boundary=x", body: ByteBuffer(string: "no parts at all"))
        }
        #expect(throws: ServiceError.self) {
            try FormBody.fields(
                contentType: "multipart/form-data; boundary=x",
                body: ByteBuffer(string: "--x\r\nBad Header Line\r\n\r\nv\r\n--x--\r\n")
            )
        }
    }

    @Test("applyEdits parameters: JSON arrays, comma lists, GlobalID deletes")
    func applyEdits() throws {
        let batch = try EditBatch.parse(
            RequestParameters([
                FormField("adds", #"[{"attributes":{"name":"A","visitors":3},"geometry":{"x":1.5,"y":2}},{"attributes":null}]"#),
                FormField("updates", #"{"attributes":{"OBJECTID":4}}"#), FormField("deletes", "37, 462"), FormField("rollbackOnFailure", "False"),
                FormField("returnEditMoment", "true"),
            ])
        )
        #expect(batch.adds == [FeatureEdit(attributes: ["name": "A", "visitors": 3], geometry: ["x": 1.5, "y": 2]), FeatureEdit(attributes: [:])])
        #expect(batch.updates == [FeatureEdit(attributes: ["OBJECTID": 4])])
        #expect(batch.deletes == [.objectId(37), .objectId(462)])
        #expect(!batch.rollbackOnFailure && !batch.useGlobalIds && batch.returnEditMoment)
        let json = try EditBatch.parse(RequestParameters([FormField("deletes", "[1,2]")]))
        #expect(json.deletes == [.objectId(1), .objectId(2)])
        let guids = try EditBatch.parse(
            RequestParameters([FormField("deletes", #"["{B3FC0000-0000-4000-8000-000000000001}"]"#), FormField("useGlobalIds", "true")])
        )
        #expect(guids.deletes == [.globalId("{B3FC0000-0000-4000-8000-000000000001}")])
        let commaGuids = try EditBatch.parse(
            RequestParameters([
                FormField("deletes", "{B3FC0000-0000-4000-8000-000000000001},{B3FC0000-0000-4000-8000-000000000002}"),
                FormField("useGlobalIds", "True"),
            ])
        )
        #expect(commaGuids.deletes.count == 2)
    }

    static let malformedEdits: [(FormField, String)] = [
        (FormField("adds", #"[{"attributes":{"name":"A"}"#), "'adds' parameter is invalid"),
        (FormField("adds", "not json"), "'adds' parameter is invalid"),
        (FormField("adds", "[1,2]"), "'adds' parameter is invalid"),
        (FormField("adds", #"[{"attributes":[1]}]"#), "'adds' parameter is invalid"),
        (FormField("updates", #"[{"attributes":{"a":tru}}]"#), "'updates' parameter is invalid"),
        (FormField("deletes", "1,x"), "'deletes' parameter is invalid"),
        (FormField("deletes", "[1,"), "'deletes' parameter is invalid"),
        (FormField("rollbackOnFailure", "nope"), "'rollbackOnFailure' parameter is invalid"),
    ]

    @Test("malformed applyEdits parameters are 400 envelopes naming the parameter", arguments: malformedEdits)
    func badEdits(_ field: FormField, _ detail: String) {
        let error = #expect(throws: ServiceError.self) { try EditBatch.parse(RequestParameters([field])) }
        #expect(error?.error.code == 400)
        #expect(error?.error.details.first == detail)
    }

    @Test("JSONReader reads what JSONDecoder reads")
    func json() throws {
        let text = #" {"a":[1,-2,3.5,1e2,true,false,null],"s":"q\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00","big":12345678901234567890,"o":{}} "#
        let value = try JSONReader.parse(text)
        let expected: JSONValue = [
            "a": [1, -2, 3.5, 100.0, true, false, nil], "s": "q\"\\/\u{8}\u{c}\n\r\té😀", "big": .double(1.2345678901234567e19), "o": [:],
        ]
        #expect(value == expected)
        #expect(try JSONReader.parse("-0") == .int(0))
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"\u{1}\"", "tru", "[1] 2", "{\"a\":1,}", "\"\\x\""] {
            #expect(throws: JSONReader.SyntaxError.self, "\(bad)") { try JSONReader.parse(bad) }
        }
        #expect(throws: JSONReader.SyntaxError.self) { try JSONReader.parse(String(repeating: "[", count: 100_000)) }
    }
}
