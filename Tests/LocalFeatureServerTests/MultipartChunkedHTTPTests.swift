import FeatureModel
import Foundation
import Testing

@testable import LocalFeatureServer

/// Multipart bodies over a raw socket in HTTP chunks cut inside the delimiters, so the server's streaming form reader
/// gets each delimiter in two or more pieces, against the real server on port 0.
@Suite struct MultipartChunkedHTTPTests {
    static let boundary = "----featureloadSplit"

    /// A chunked multipart POST of `fields` to `path`, its body cut at `cuts` (offsets into the body).
    static func request(_ path: String, body: [UInt8], cuts: [Int]) -> [UInt8] {
        var request = Array(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=\(boundary)\r\nTransfer-Encoding: chunked\r\n\r\n"
                .utf8)
        var start = 0
        for end in cuts.filter({ $0 > 0 && $0 < body.count }).sorted() + [body.count] where end > start {
            request += Array("\(String(end - start, radix: 16))\r\n".utf8) + body[start..<end] + Array("\r\n".utf8)
            start = end
        }
        return request + Array("0\r\n\r\n".utf8)
    }

    static func body(_ fields: [(String, String)]) -> [UInt8] {
        var text = ""
        for (name, value) in fields { text += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n" }
        return Array((text + "--\(boundary)--\r\n").utf8)
    }

    /// The response's body after its head.
    static func responseBody(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let start = text.range(of: "\r\n\r\n")?.upperBound else { return "" }
        return String(text[start...])
    }

    @Test("applyEdits over multipart with every delimiter split across HTTP chunks adds the feature", .timeLimit(.minutes(1)))
    func splitDelimiters() async throws {
        try await withConfiguredServer({ _ in }) { endpoint in
            let adds = #"[{"attributes":{"name":"Split Park","state":"CO"},"geometry":{"x":-105.1,"y":39.7}}]"#
            // A field no operation reads, holding near-delimiters: it must not end its part early.
            let body = Self.body([
                ("f", "json"), ("note", "a\r\n--\(Self.boundary.dropLast())\r\n-\r"), ("adds", adds), ("rollbackOnFailure", "true"),
            ])
            let delimiter = Array("\r\n--\(Self.boundary)".utf8)
            var cuts: [Int] = []
            var searchFrom = 0
            while let found = body[searchFrom...].firstRange(of: delimiter) {
                cuts += [found.lowerBound + 1, found.lowerBound + 3, found.lowerBound + 10, found.upperBound, found.upperBound + 1]
                searchFrom = found.upperBound
            }
            #expect(cuts.count == 20)
            let connection = try RawConnection(port: endpoint.port)
            let path = "/arcgis/rest/services/parks/FeatureServer/0/applyEdits"
            #expect(await connection.send(Self.request(path, body: body, cuts: cuts)))
            let answer = Self.responseBody(await connection.exchange("", timeout: .seconds(30)))
            #expect(answer.contains(#""addResults":[{"objectId":"#) && answer.contains(#""success":true"#), "\(answer)")
        }
    }

    @Test("a part's header lines longer than the request body limit are a 413, not held in memory", .timeLimit(.minutes(1)))
    func oversizeHeaders() async throws {
        try await withConfiguredServer({ $0.limits.maximumRequestBodySize = 16 * 1024 }) { endpoint in
            let header = "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"f\"; x=\"" + String(repeating: "y", count: 40 * 1024)
            let connection = try RawConnection(port: endpoint.port)
            let path = "/arcgis/rest/services/parks/FeatureServer/0/applyEdits"
            let body = Array(header.utf8)
            await connection.send(Self.request(path, body: body, cuts: Array(stride(from: 4096, to: body.count, by: 4096))))
            let response = await connection.exchange("", timeout: .seconds(30))
            #expect(ConnectionHardeningTests.envelopeCode(response) == 413, "\(Self.responseBody(response))")
        }
    }
}
