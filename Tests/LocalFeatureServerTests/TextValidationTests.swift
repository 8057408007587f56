import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

@testable import LocalFeatureServer

/// Text as the geodatabase stores it. Before: `state` (length 2) took "C" plus 5,000 combining marks and `name`
/// (length 128) took 10,001 code points, because lengths were counted in grapheme clusters; bytes that were not
/// UTF-8 were silently replaced with U+FFFD and stored.
@Suite struct TextValidationTests {
    static func field(_ name: String) throws -> Field {
        try #require(ParksDataset.definition.layers[0].info.fields.first { $0.name == name })
    }

    static func code(_ value: String, _ field: Field) -> Int? {
        if case .failure(let failure) = AttributeCoercion.coerce(.string(value), for: field) { return failure.error.code }
        return nil
    }

    @Test("a field's length counts UTF-16 code units, as SQL Server's NVARCHAR(n) under ArcGIS does")
    func lengths() throws {
        let state = try Self.field("state")
        let name = try Self.field("name")
        #expect(state.length == 2 && name.length == 128)
        #expect(Self.code("C" + String(repeating: "\u{0301}", count: 5_000), state) == 1016, "combining marks count")
        #expect(Self.code("C\u{0301}", state) == nil, "two code units fit")
        #expect(Self.code("CO\u{0301}", state) == 1016)
        #expect(Self.code("😀", state) == nil, "one astral character is two UTF-16 units")
        #expect(Self.code("😀C", state) == 1016)
        #expect(Self.code(String(repeating: "a", count: 10_001), name) == 1016)
        #expect(Self.code(String(repeating: "é", count: 128), name) == nil, "128 characters of two UTF-8 bytes each fit")
        #expect(Self.code(String(repeating: "é", count: 129), name) == 1016)
    }

    @Test("form decoding refuses bytes that are not UTF-8 instead of replacing them")
    func formUTF8() throws {
        #expect(try FormEncoding.decodeValidatingUTF8(utf8: Array("a=%C3%A9&b=x+y".utf8)) == [FormField("a", "é"), FormField("b", "x y")])
        for bad in ["adds=%FF", "adds=ok&where=%E2%82", "x=%ED%A0%80", "%C0%AF=1"] {
            #expect(throws: FormEncoding.InvalidUTF8.self, "\(bad)") { try FormEncoding.decodeValidatingUTF8(utf8: Array(bad.utf8)) }
        }
        do {
            _ = try FormEncoding.decodeValidatingUTF8(utf8: Array("f=json&adds=%FF".utf8))
        } catch {
            #expect(error.name == "adds")
        }
        #expect(FormEncoding.decode("a=%FF") == [FormField("a", "\u{FFFD}")], "the lenient decoder used by clients is unchanged")
    }

    @Test(
        "over HTTP, invalid UTF-8 in a form body, a query string or a multipart field is a 400 naming the field; nothing is stored",
        .timeLimit(.minutes(1)))
    func http() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let before = try #require(try await Wire.count(transport, server.serviceURL))
                let adds =
                    FormEncoding.escape(#"[{"attributes":{"name":"Caf"#) + "%E9"
                    + FormEncoding.escape(#"","state":"CO"},"geometry":{"x":-105,"y":40}}]"#)
                let body = Array("f=json&adds=\(adds)".utf8)
                let form = try await transport.send(
                    HTTPRequest(
                        method: .post, url: server.serviceURL + "/0/applyEdits",
                        headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")], body: body))
                #expect(WireJSON.error(in: form.body)?.details.contains { $0.contains("'adds'") } == true, "\(Wire.text(form))")

                let query = try await transport.send(HTTPRequest(url: server.serviceURL + "/0/query?where=name%3D%27%FF%27&f=json"))
                #expect(WireJSON.error(in: query.body)?.code == 400, "\(Wire.text(query))")

                var multipart: [UInt8] = Array("--B\r\nContent-Disposition: form-data; name=\"adds\"\r\n\r\n[{\"attributes\":{\"name\":\"".utf8)
                multipart +=
                    [0xC3, 0x28] + Array("\",\"state\":\"CO\"}}]\r\n--B\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\njson\r\n--B--\r\n".utf8)
                let parts = try await transport.send(
                    HTTPRequest(
                        method: .post, url: server.serviceURL + "/0/applyEdits",
                        headers: [HTTPHeader("Content-Type", "multipart/form-data; boundary=B")], body: multipart))
                #expect(WireJSON.error(in: parts.body)?.details.contains { $0.contains("'adds'") } == true, "\(Wire.text(parts))")
                #expect(try await Wire.count(transport, server.serviceURL) == before)
            }
        }
    }
}
