import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import NIOCore
import Testing

@testable import LocalFeatureServer

/// Seeded, bounded random input to every request parser: none may crash, and over HTTP every answer is a JSON
/// document (an answer or the ArcGIS envelope), never a dropped connection.
///
/// Each input is a mutation of a valid one (cut, byte flipped, spliced, duplicated), or soup built from the
/// characters that matter to the parser; the seed is fixed, so a failure reproduces.
@Suite struct RequestParserFuzzTests {
    /// Random choices from one seeded stream.
    struct Source {
        var generator: SplitMix64

        init(seed: UInt64) { generator = SplitMix64(seed: seed) }

        mutating func below(_ bound: Int) -> Int { Int(generator.next() % UInt64(max(bound, 1))) }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

        /// When false, random bytes stay below 0x80 (see ``RequestParserFuzzTests/nonASCIIMultipartHeaderName()``).
        var allowsNonASCII = true

        /// Any byte (only ASCII unless ``allowsNonASCII``).
        mutating func anyByte() -> UInt8 {
            let byte = UInt8(truncatingIfNeeded: generator.next())
            return allowsNonASCII ? byte : byte & 0x7F
        }

        /// `count` bytes, mostly from `alphabet`, sometimes any byte.
        mutating func bytes(_ count: Int, alphabet: [UInt8]) -> [UInt8] {
            (0..<count).map { _ in chance(10) ? anyByte() : pick(alphabet) }
        }

        /// `bytes` mutated 1–4 times: cut at a point, a byte replaced, a slice duplicated, bytes inserted.
        mutating func mutate(_ bytes: [UInt8], alphabet: [UInt8]) -> [UInt8] {
            var out = bytes
            for _ in 0..<(1 + below(4)) {
                let position = below(out.count + 1)
                switch below(4) {
                case 0: out = Array(out.prefix(position))
                case 1 where position < out.count: out[position] = chance(50) ? pick(alphabet) : anyByte()
                case 2:
                    let end = min(out.count, position + below(16))
                    out.insert(contentsOf: out[position..<end], at: position)
                default: out.insert(contentsOf: self.bytes(1 + below(6), alphabet: alphabet), at: position)
                }
            }
            return out
        }
    }

    static let formAlphabet = Array("a=&%2Fz+0129;[]{}\"':,".utf8)
    static let jsonAlphabet = Array("{}[]\":,0123456789.-+eEtruefalsnl \\u\n".utf8)
    static let pathAlphabet = Array("/arcgis/rest/services/parks/FeatureServer/0123456789queryapplyEdits%.._-~".utf8)

    static let validEdits: [String] = [
        #"[{"attributes":{"name":"Fuzz","state":"UT","visitors":5},"geometry":{"x":-110.1,"y":38.5,"spatialReference":{"wkid":4326}}}]"#,
        #"[{"attributes":{"OBJECTID":1,"name":"Renamed"}}]"#,
        #"{"attributes":{"GlobalID":"{8A3C9E2B-1D4F-4A6B-9C8D-7E6F5A4B3C2D}","established":-1577923200000}}"#,
        #"[{"id":0,"adds":[{"attributes":{"name":"x"}}],"updates":[],"deletes":[3,4]},{"id":1,"deletes":"5"}]"#,
    ]

    static let routePaths: [String] = [
        "/arcgis/rest/services/parks/FeatureServer/0/query", "/arcgis/rest/services/parks/FeatureServer/applyEdits",
        "/arcgis/rest/services/parks/FeatureServer/1/queryRelatedRecords", "/arcgis/sharing/rest/portals/self",
        "/arcgis/rest/services/parks/FeatureServer/0/12/attachments/3", "/arcgis/rest/services/parks/FeatureServer/query",
    ]

    @Test("form decoding, routes and layerDefs survive random text")
    func formsRoutesAndLayerDefinitions() {
        var source = Source(seed: 0xF0E5_0001)
        var routed = 0
        for round in 0..<4_000 {
            let form = String(decoding: source.bytes(source.below(80), alphabet: Self.formAlphabet), as: UTF8.self)
            let fields = FormEncoding.decode(form)
            #expect(fields.count <= form.utf8.count + 1)
            _ = FormEncoding.decode(utf8: source.bytes(source.below(80), alphabet: Self.formAlphabet))

            let path = String(decoding: source.mutate(Array(source.pick(Self.routePaths).utf8), alphabet: Self.pathAlphabet), as: UTF8.self)
            if FeatureServerRoute(path: path) != nil { routed += 1 }
            _ = FeatureServerRoute(path: String(decoding: source.bytes(source.below(60), alphabet: Self.pathAlphabet), as: UTF8.self))

            let definitions = [#"{"0":"state = 'UT'","1":"1=1"}"#, #"[{"layerId":0,"where":"1=1","outFields":"*"}]"#, "0:1=1;1:name LIKE 'a%'"][
                round % 3
            ]
            _ = try? LayerDefinitions.parse(String(decoding: source.mutate(Array(definitions.utf8), alphabet: Self.jsonAlphabet), as: UTF8.self))
        }
        #expect(routed > 0)
    }

    @Test("JSON edit payloads and applyEdits parameters survive random mutations")
    func editPayloads() {
        var source = Source(seed: 0xF0E5_0002)
        var accepted = 0
        for _ in 0..<4_000 {
            let seed = Array(source.pick(Self.validEdits).utf8)
            let text = String(decoding: source.mutate(seed, alphabet: Self.jsonAlphabet), as: UTF8.self)
            _ = try? JSONReader.parse(bytes: source.bytes(source.below(40), alphabet: Self.jsonAlphabet))
            if (try? JSONReader.parse(text)) != nil { accepted += 1 }
            let parameters = RequestParameters([
                FormField("adds", text), FormField("updates", source.chance(50) ? text : ""),
                FormField("deletes", source.pick(["1,2", "[3]", "{8A3C9E2B-1D4F-4A6B-9C8D-7E6F5A4B3C2D}", text])),
                FormField("rollbackOnFailure", source.pick(["true", "False", "TRUE", "maybe", ""])),
                FormField("useGlobalIds", source.pick(["false", "True", "1"])), FormField("edits", text),
            ])
            _ = try? EditBatch.parse(parameters)
            _ = try? ServiceEditBatch.parse(parameters)
        }
        #expect(accepted > 0)
    }

    /// A multipart body with `boundary`: fields, maybe a file part, maybe the closing delimiter.
    static func multipart(_ source: inout Source, boundary: String) -> [UInt8] {
        var text = ""
        for index in 0..<(1 + source.below(4)) {
            text += "--\(boundary)\r\nContent-Disposition: form-data; name=\"field\(index)\""
            if source.chance(25) { text += "; filename=\"a\(index).txt\"\r\nContent-Type: text/plain" }
            text += "\r\n\r\nvalue \(index)\r\n"
        }
        if source.chance(80) { text += "--\(boundary)--\r\n" }
        return Array(text.utf8)
    }

    @Test("multipart bodies with random boundaries and truncated or corrupted parts never crash the form reader")
    func multipartBodies() {
        var source = Source(seed: 0xF0E5_0003)
        source.allowsNonASCII = false
        var parsed = 0
        let boundaryAlphabet = Array("abcXYZ0123456789-_'()+,./:=? ".utf8)
        for _ in 0..<3_000 {
            let boundary = String(decoding: source.bytes(1 + source.below(70), alphabet: boundaryAlphabet), as: UTF8.self)
            var body = Self.multipart(&source, boundary: boundary)
            if source.chance(60) { body = source.mutate(body, alphabet: Array("-\r\n\":;=".utf8) + boundaryAlphabet) }
            let quoted = source.chance(30) ? "\"\(boundary)\"" : boundary
            let contentType = source.pick([
                "multipart/form-data; boundary=\(quoted)", "multipart/form-data", "multipart/form-data; boundary=",
                "Multipart/Form-Data;boundary=\(quoted)",
                "multipart/form-data; charset=utf-8; boundary=\(quoted)",
            ])
            if (try? FormBody.fields(contentType: contentType, body: ByteBuffer(bytes: body))) != nil { parsed += 1 }
        }
        #expect(parsed > 0)
    }

    static let requestPaths: [String] = [
        "/arcgis/rest/services/parks/FeatureServer/0/query", "/arcgis/rest/services/parks/FeatureServer/1/query",
        "/arcgis/rest/services/parks/FeatureServer/0/applyEdits", "/arcgis/rest/services/parks/FeatureServer/applyEdits",
        "/arcgis/rest/services/parks/FeatureServer/0/addFeatures", "/arcgis/rest/services/parks/FeatureServer/0/deleteFeatures",
        "/arcgis/rest/services/parks/FeatureServer/0/queryRelatedRecords", "/arcgis/rest/services/parks/FeatureServer/query",
        "/arcgis/rest/services/parks/FeatureServer/0", "/arcgis/rest/services/parks/FeatureServer", "/arcgis/rest/services",
        "/arcgis/sharing/rest/portals/self", "/arcgis/rest/services/parks/FeatureServer/0/1/attachments",
        "/arcgis/rest/services/parks/FeatureServer/0/queryAttachments", "/arcgis/rest/services/nosuch/FeatureServer/0/query",
    ]

    static let parameterNames = [
        "where", "outFields", "objectIds", "returnCountOnly", "returnIdsOnly", "resultOffset", "resultRecordCount", "orderByFields",
        "outStatistics", "geometry", "outSR", "adds", "updates", "deletes", "edits", "features", "layerDefs", "relationshipId", "f",
    ]

    @Test("a few hundred random requests to the real server all get JSON answers", .timeLimit(.minutes(1)))
    func randomRequestsOverHTTP() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                var source = Source(seed: 0xF0E5_0004)
                let origin = "http://127.0.0.1:\(server.port)"
                for round in 0..<300 {
                    var path = source.pick(Self.requestPaths)
                    if source.chance(30) {
                        let mutated = source.mutate(Array(path.utf8), alphabet: Self.pathAlphabet)
                        path =
                            "/"
                            + mutated.map { byte in
                                Self.unreserved.contains(byte)
                                    ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true).leftPadded
                            }.joined()
                    }
                    var fields: [FormField] = [FormField("f", source.pick(["json", "pjson", "html", ""]))]
                    for _ in 0..<source.below(5) {
                        let value =
                            source.chance(50)
                            ? String(decoding: source.mutate(Array(source.pick(Self.validEdits).utf8), alphabet: Self.jsonAlphabet), as: UTF8.self)
                            : String(decoding: source.bytes(source.below(30), alphabet: Self.formAlphabet), as: UTF8.self)
                        fields.append(FormField(source.pick(Self.parameterNames), value))
                    }
                    let request: HTTPRequest
                    switch source.below(4) {
                    case 0: request = HTTPRequest(url: origin + path + "?" + FormEncoding.encode(fields))
                    case 1: request = HTTPRequest.form(url: origin + path, fields: fields)
                    case 2:
                        let boundary = "fuzz\(round)"
                        var body = Self.multipart(&source, boundary: boundary)
                        source.allowsNonASCII = false
                        if source.chance(50) { body = source.mutate(body, alphabet: Self.formAlphabet) }
                        source.allowsNonASCII = true
                        request = HTTPRequest(
                            method: .post,
                            url: origin + path,
                            headers: [HTTPHeader("Content-Type", "multipart/form-data; boundary=\(boundary)")],
                            body: body
                        )
                    default:
                        request = HTTPRequest(
                            method: .post,
                            url: origin + path,
                            headers: [HTTPHeader("Content-Type", source.pick(["application/json", "text/plain", "application/octet-stream"]))],
                            body: source.bytes(source.below(200), alphabet: Self.jsonAlphabet)
                        )
                    }
                    let response = try await transport.send(request)
                    #expect(response.status == 200, "\(request.method) \(path)")
                    #expect(response.header("Content-Type")?.contains("json") == true, "\(request.method) \(path)")
                    #expect(
                        (try? JSONReader.parse(bytes: response.body)) != nil,
                        "\(request.method) \(path): \(String(decoding: response.body.prefix(200), as: UTF8.self))"
                    )
                }
                // The server still answers normally afterwards.
                let count = try await transport.send(HTTPRequest(url: server.serviceURL + "/1/query?returnCountOnly=true&f=json"))
                #expect(String(decoding: count.body, as: UTF8.self).hasPrefix(#"{"count":"#))
            }
        }
    }

    /// Header names are RFC 9110 tokens; a non-ASCII byte there is refused with its own message (the multipart parser
    /// the server used before trapped on one, taking the whole server down).
    @Test("a non-ASCII byte in a multipart part's header name is a 400, not a crash")
    func nonASCIIMultipartHeaderName() {
        let body = ByteBuffer(bytes: Array("--b\r\n".utf8) + [0xC3, 0xA9] + Array(": x\r\n\r\nv\r\n--b--\r\n".utf8))
        #expect(throws: ServiceError.malformedBody("multipart/form-data has a part header name that is not ASCII")) {
            try FormBody.fields(contentType: "multipart/form-data; boundary=b", body: body)
        }
        let second = ByteBuffer(
            bytes: Array("pre\u{7F}amble\r\n--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--b\r\nX".utf8) + [0xFF]
                + Array(": y\r\n\r\nw\r\n--b--\r\n".utf8))
        #expect(throws: ServiceError.self) { try FormBody.fields(contentType: "multipart/form-data; boundary=b", body: second) }
        // After a preamble that holds `--b` without a CRLF before it (the first part starts there).
        let third = ByteBuffer(bytes: Array("x--b\r\n".utf8) + [0xFF] + Array(": y\r\n\r\nw\r\n--b--\r\n".utf8))
        #expect(throws: ServiceError.self) { try FormBody.fields(contentType: "multipart/form-data; boundary=b", body: third) }
    }

    @Test("non-ASCII bytes in header values, part bodies and the epilogue are fine, in any chunking")
    func nonASCIIElsewhere() throws {
        let bytes = Array("--b\r\nContent-Disposition: form-data; name=\"n\"; filename=\"é.txt\"\r\n\r\nbödy ✓\r\n--b--\r\nepilogüe".utf8)
        for split in 0..<bytes.count {
            let accumulator = MultipartAccumulator(boundary: "b", limits: .unlimitedInMemory)
            try accumulator.feed(ByteBuffer(bytes: bytes[..<split]))
            try accumulator.feed(ByteBuffer(bytes: bytes[split...]))
            let form = try accumulator.finish()
            let contents = try form.files.first?.bytes()
            #expect(form.files.map(\.filename) == ["é.txt"] && contents == Array("bödy ✓".utf8), "split at \(split)")
        }
        let bad = Array("--b\r\nNä".utf8)
        for split in 1..<bad.count {
            let accumulator = MultipartAccumulator(boundary: "b", limits: .unlimitedInMemory)
            #expect(throws: ServiceError.self, "split at \(split)") {
                try accumulator.feed(ByteBuffer(bytes: bad[..<split]))
                try accumulator.feed(ByteBuffer(bytes: bad[split...]))
            }
        }
    }

    static let unreserved = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/".utf8))
}

extension String {
    /// Two hex digits.
    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}
