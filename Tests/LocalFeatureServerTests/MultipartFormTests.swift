import FeatureModel
import Foundation
import NIOCore
import Testing

@testable import LocalFeatureServer

/// The form reader over the multipart parser: which bodies are refused, with which envelope.
@Suite struct MultipartFormTests {
    static let contentType = "multipart/form-data; boundary=b"

    static func form(_ text: String) throws(ServiceError) -> MultipartForm {
        try FormBody.form(contentType: contentType, body: ByteBuffer(string: text))
    }

    static func malformed(_ reason: String) -> ServiceError { ServiceError.malformedBody(reason) }

    @Test("each kind of broken body has its own 400 message")
    func messages() {
        #expect(throws: Self.malformed("multipart/form-data without a boundary")) {
            try FormBody.form(contentType: "multipart/form-data; charset=utf-8", body: ByteBuffer(string: "--b\r\n\r\nv\r\n--b--"))
        }
        #expect(throws: Self.malformed("multipart/form-data has no closing boundary")) { try Self.form("--b\r\n\r\nv\r\n--b") }
        #expect(throws: Self.malformed("multipart/form-data has no closing boundary")) { try Self.form("no parts at all") }
        #expect(throws: Self.malformed("multipart/form-data has no closing boundary")) { try Self.form("--b\r\n\r\nv\r\n--b-x") }
        #expect(throws: Self.malformed("multipart/form-data does not parse")) { try Self.form("--b\r\nBad Header\r\n\r\nv\r\n--b--") }
        #expect(throws: Self.malformed("multipart/form-data does not parse")) { try Self.form("--b\r\nA: 1\r\n folded\r\n\r\nv\r\n--b--") }
        #expect(throws: Self.malformed("multipart/form-data has a part header name that is not ASCII")) {
            try Self.form("--b\r\nN\u{E4}me: 1\r\n\r\nv\r\n--b--")
        }
        var invalid = ByteBuffer(string: "--b\r\nContent-Disposition: form-data; name=\"adds\"\r\n\r\n")
        invalid.writeBytes([0xC3, 0x28])
        invalid.writeString("\r\n--b--")
        #expect(throws: ServiceError.invalidParameter("adds", reason: "it is not valid UTF-8; send text as UTF-8")) {
            try FormBody.form(contentType: Self.contentType, body: invalid)
        }
    }

    @Test("the last part must end at CRLF --boundary--: a closing delimiter inside its data leaves the body unclosed")
    func closingDelimiterInData() throws {
        // The reader before this one accepted this body (the closing delimiter was somewhere in its last KiB) and
        // silently dropped the unfinished part `b`.
        let text =
            "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--b\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\nxx--b--\r\n"
        #expect(throws: Self.malformed("multipart/form-data has no closing boundary")) { try Self.form(text) }
    }

    @Test("preamble and epilogue of any length are skipped; parts without a name are left out; header names are case-insensitive")
    func framing() throws {
        let epilogue = String(repeating: "epilogue --b\r\n", count: 200)
        let form = try Self.form(
            "preamble\r\n--b\r\ncontent-disposition: form-data; name=\"f\"\r\n\r\njson\r\n--b\r\nX-Other: 1\r\n\r\nskipped\r\n"
                + "--b\r\nCONTENT-DISPOSITION: form-data; name=\"attachment\"; filename=\"a.txt\"\r\ncontent-TYPE: text/plain\r\n\r\n\r\n--b--\r\n"
                + epilogue)
        #expect(form.fields == [FormField("f", "json")])
        #expect(form.files.map(\.filename) == ["a.txt"] && form.files.first?.contentType == "text/plain" && form.files.first?.size == 0)
        let unquoted = try FormBody.form(
            contentType: "multipart/form-data; boundary=\"b\"",
            body: ByteBuffer(string: "--b\r\nContent-Disposition: form-data; name=x\r\n\r\n1\r\n--b--"))
        #expect(unquoted.fields == [FormField("x", "1")])
    }

    @Test("streamed: a part's header lines over the field limit are a 413 and leave no temporary file")
    func headerLimit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let limits = MultipartAccumulator.Limits(fieldBytes: 100, fileBytes: 10_000, spillThreshold: 10, temporaryRoot: directory.url.path)
        let file = "--b\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"a.bin\"\r\n\r\n" + String(repeating: "z", count: 500)
        let accumulator = MultipartAccumulator(boundary: "b", limits: limits)
        try accumulator.feed(ByteBuffer(string: file + "\r\n"))
        #expect(throws: RequestBodyLimit.tooLarge(limit: 100)) {
            try accumulator.feed(ByteBuffer(string: "--b\r\nContent-Disposition: form-data; name=\"" + String(repeating: "n", count: 100)))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }
}
