import FeatureModel
import Foundation
import Testing

@testable import FeatureServiceClient

/// The multipart builder and the body reader, without I/O beyond a temporary file.
@Suite struct MultipartBodyTests {
    /// Reads `body` through a ``BodyReader`` with buffers of `chunk` bytes.
    static func drain(_ body: HTTPRequest.Body, chunk: Int) throws -> [UInt8] {
        let reader = BodyReader(body)
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        for _ in 0..<1_000_000 {
            let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
            if count == 0 { return output }
            output += buffer[..<count]
        }
        Issue.record("the reader never reached the end")
        return output
    }

    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("multipart-\(UUID().uuidString).bin").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a small body has exactly the RFC 7578 bytes, and its computed length is the length produced")
    func exactBytes() throws {
        let path = try Self.temporaryFile(Array("0123456789".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let body = MultipartBody(
            parts: [
                .field("f", "json"),
                .file(name: "attachment", filename: "a\"b\r\n.txt", contentType: "text/plain", range: .init(path: path, offset: 2, length: 5)),
                .file(name: "x", filename: "m.bin", contentType: "application/octet-stream", bytes: [0, 1]),
            ],
            boundary: "BOUNDARY")
        let expected =
            "--BOUNDARY\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\njson\r\n"
            + "--BOUNDARY\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"a%22b%0D%0A.txt\"\r\nContent-Type: text/plain\r\n\r\n23456\r\n"
            + "--BOUNDARY\r\nContent-Disposition: form-data; name=\"x\"; filename=\"m.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n\u{0}\u{1}\r\n"
            + "--BOUNDARY--\r\n"
        for chunk in [1, 3, 7, 64, 4096] {
            let produced = try Self.drain(.multipart(body), chunk: chunk)
            #expect(produced == Array(expected.utf8), "chunk \(chunk)")
        }
        #expect(body.contentLength == Int64(expected.utf8.count))
        #expect(HTTPRequest.Body.multipart(body).contentLength == body.contentLength)
        #expect(body.contentType == "multipart/form-data; boundary=BOUNDARY")
        let request = HTTPRequest.multipart(url: "http://h/0/1/addAttachment", body: body)
        #expect(request.method == .post && request.headers == [HTTPHeader("Content-Type", body.contentType)])
    }

    @Test("a 3 MB file part streams in small buffers and comes out whole with the computed length")
    func largeFilePart() throws {
        var generator = SplitMix64(seed: 7)
        let bytes = (0..<3_000_001).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = try Self.temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let body = MultipartBody(parts: [
            .file(name: "file", filename: "big.bin", contentType: "application/octet-stream", range: .init(path: path, length: 3_000_001))
        ])
        let produced = try Self.drain(.multipart(body), chunk: 65_536)
        #expect(Int64(produced.count) == body.contentLength)
        let header = body.parts[0].header(boundary: body.boundary).count
        #expect(Array(produced[header..<(header + bytes.count)]) == bytes)
        #expect(body.boundary.hasPrefix("featureload-") && body.boundary.count == 44)
        #expect(MultipartBody.makeBoundary() != MultipartBody.makeBoundary())
    }

    @Test("a file that shrank after the body was built fails the read instead of sending a short body")
    func shrunkFile() throws {
        let path = try Self.temporaryFile([UInt8](repeating: 1, count: 100))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let body = MultipartBody(
            parts: [.file(name: "file", filename: "f", contentType: "x/y", range: .init(path: path, length: 100))], boundary: "B")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        #expect(throws: BodyReader.Failure.self) { try Self.drain(.multipart(body), chunk: 4096) }
        let missing = MultipartBody(
            parts: [.file(name: "file", filename: "f", contentType: "x/y", range: .init(path: path + ".gone", length: 1))], boundary: "B")
        let error = #expect(throws: BodyReader.Failure.self) { try Self.drain(.multipart(missing), chunk: 4096) }
        #expect(error?.description.contains("cannot open") == true)
    }

    @Test("byte bodies keep the old initializer and read back unchanged")
    func byteBodies() throws {
        let request = HTTPRequest(method: .post, url: "http://h/q", body: Array("a=1".utf8))
        #expect(request.body == .bytes(Array("a=1".utf8)) && request.body.contentLength == 3 && request.body.bytes == Array("a=1".utf8))
        #expect(try Self.drain(request.body, chunk: 2) == Array("a=1".utf8))
        #expect(HTTPRequest(url: "http://h").body.isEmpty)
    }

    @Test("files above the threshold are split into ordered ranges of the part size; others go directly")
    func uploadPlan() {
        let options = AttachmentUploadOptions(threshold: 10, partSize: 4, concurrency: 2)
        #expect(AttachmentUploadPlan.make(path: "p", size: 10, options: options) == .direct)
        #expect(
            AttachmentUploadPlan.make(path: "p", size: 11, options: options)
                == .parts([.init(path: "p", offset: 0, length: 4), .init(path: "p", offset: 4, length: 4), .init(path: "p", offset: 8, length: 3)]))
        #expect(AttachmentUploadOptions().threshold == 10_000_000)
    }

    @Test(
        "attachment names lose directories, control characters and leading dots",
        arguments: [
            ("../../etc/passwd", "passwd"), ("C:\\temp\\..\\x.jpg", "x.jpg"), ("..", "attachment"), ("/tmp/photos/", "attachment"),
            ("a\u{0}b\nc.txt", "abc.txt"), (".hidden", "hidden"), ("plain.png", "plain.png"),
        ])
    func sanitizedNames(name: String, expected: String) {
        #expect(AttachmentFileName.sanitized(name) == expected)
    }

    @Test("the uploads resource is found next to the layer, keeping the query string")
    func uploadsURL() {
        let layer = FeatureLayerClient(url: "http://h/arcgis/rest/services/parks/FeatureServer/0?token=t", transport: NoTransport())
        #expect(layer.uploadsURL("register") == "http://h/arcgis/rest/services/parks/FeatureServer/uploads/register?token=t")
        let plain = FeatureLayerClient(url: "http://h/s/FeatureServer/3/", transport: NoTransport())
        #expect(plain.uploadsURL("i1/commit") == "http://h/s/FeatureServer/uploads/i1/commit")
    }
}

/// A transport for tests that never send.
private struct NoTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw TransportError(.invalidRequest, url: request.url)
    }
}
