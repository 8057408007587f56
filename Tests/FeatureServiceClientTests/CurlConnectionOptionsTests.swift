import FeatureModel
import Foundation
import Testing

@testable import FeatureServiceClient

/// The configuration's defaults and their libcurl option values, and gzip request bodies; no server.
@Suite struct CurlConnectionOptionsTests {
    @Test("defaults: verification on, environment proxy, HTTP/2 over TLS when offered, uncompressed bodies")
    func defaults() {
        let configuration = CurlTransportConfiguration()
        #expect(configuration.tls == .init(verifyPeer: true, verifyHost: true, caFile: nil))
        #expect(!configuration.insecure)
        #expect(configuration.proxy == .environment)
        #expect(configuration.httpVersion == .automatic)
        #expect(!configuration.compressRequestBodies)
        #expect(configuration.maxConnections == 64)

        let options = CurlConnectionOptions(configuration)
        #expect(options.httpVersion == 4, "CURL_HTTP_VERSION_2TLS")
        #expect(options.pipelining == 2, "CURLPIPE_MULTIPLEX")
        #expect(options.pipeWait == 1 && !options.pipeWaitWithoutTLS, "plain http:// is HTTP/1.1: requests never wait")
        #expect(CurlMulti.isHTTPS("HTTPS://h/x") && CurlMulti.isHTTPS("https://h"))
        #expect(!CurlMulti.isHTTPS("http://h/https://") && !CurlMulti.isHTTPS("https://"))
        #expect(options.verifyPeer == 1)
        #expect(options.verifyHost == 2)
        #expect(options.caFile == nil)
        #expect(options.proxy == nil, "CURLOPT_PROXY left unset, so libcurl reads the environment")
    }

    @Test("each choice maps to its libcurl value")
    func mapping() {
        var configuration = CurlTransportConfiguration(httpVersion: .http1_1, tls: .init(caFile: "/ca.pem"), proxy: .none)
        var options = CurlConnectionOptions(configuration)
        #expect(options.httpVersion == 2, "CURL_HTTP_VERSION_1_1")
        #expect(options.pipelining == 0 && options.pipeWait == 0, "no multiplexing over HTTP/1.1")
        #expect(options.caFile == "/ca.pem")
        #expect(options.proxy == "", "an empty CURLOPT_PROXY overrides the environment")

        configuration.httpVersion = .http2PriorKnowledge
        configuration.proxy = .url("http://proxy:3128")
        configuration.insecure = true
        options = CurlConnectionOptions(configuration)
        #expect(options.httpVersion == 5, "CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE")
        #expect(options.pipelining == 2)
        #expect(options.pipeWait == 1 && options.pipeWaitWithoutTLS, "h2c multiplexes plain http:// too")
        #expect(options.verifyPeer == 0 && options.verifyHost == 0)
        #expect(options.caFile == "/ca.pem", "insecure leaves the CA file alone")
        #expect(options.proxy == "http://proxy:3128")

        configuration.insecure = false
        #expect(configuration.tls.verifyPeer && configuration.tls.verifyHost)
    }

    @Test("libcurl's HTTP version codes and their descriptions")
    func versions() {
        #expect(HTTPVersion(curlHTTPVersion: 1) == .http1_0)
        #expect(HTTPVersion(curlHTTPVersion: 2) == .http1_1)
        #expect(HTTPVersion(curlHTTPVersion: 3) == .http2)
        #expect(HTTPVersion(curlHTTPVersion: 30) == .http3)
        #expect(HTTPVersion(curlHTTPVersion: 0) == nil)
        #expect(["\(HTTPVersion.http1_1)", "\(HTTPVersion.http2)"] == ["HTTP/1.1", "HTTP/2"])
    }

    @Test("compression applies to in-memory POST bodies of at least 1 KiB that carry no Content-Encoding")
    func compressionRules() {
        let large = Array(String(repeating: #"{"attributes":{"name":"Yosemite","state":"CA"}},"#, count: 40).utf8)
        let post = HTTPRequest(method: .post, url: "http://h/applyEdits", body: large)
        let packed = RequestCompression.compressed(post)
        #expect(packed.body.contentLength < Int64(large.count) / 4, "repetitive JSON shrinks severalfold")
        #expect(packed.headers.last == HTTPHeader("Content-Encoding", "gzip"))
        #expect(Array((packed.body.bytes ?? []).prefix(3)) == [0x1F, 0x8B, 8], "gzip magic and deflate method")

        let small = HTTPRequest(method: .post, url: "http://h/q", body: Array(large.prefix(1023)))
        #expect(RequestCompression.compressed(small).body == small.body)
        let get = HTTPRequest(method: .get, url: "http://h/q", body: large)
        #expect(RequestCompression.compressed(get).headers.isEmpty)
        let encoded = HTTPRequest(method: .post, url: "http://h/q", headers: [HTTPHeader("content-encoding", "br")], body: large)
        #expect(RequestCompression.compressed(encoded).body == encoded.body)
        #expect(RequestCompression.gzip([])?.count == 20, "an empty member: 10-byte header, 2-byte block, 8-byte trailer")
    }

    @Test("a compressed body goes out with Content-Encoding: gzip and the system gzip restores it", .timeLimit(.minutes(1)))
    func compressedOnTheWire() async throws {
        let peer = try LoopbackPeer { _ in LoopbackPeer.response(body: Array("{}".utf8)) }
        defer { peer.stop() }
        let fields = (0..<200).map { FormField("f\($0)", "value number \($0) of a long form") }
        let request = HTTPRequest.form(url: "http://127.0.0.1:\(peer.port)/applyEdits", fields: fields)
        let original = try #require(request.body.bytes)
        try await withCurlTransport(configuration: CurlTransportConfiguration(compressRequestBodies: true)) { transport in
            let response = try await transport.send(request)
            #expect(response.status == 200)
            let sent = try #require(response.timing?.bytesSent)
            #expect(sent < Int64(original.count), "fewer bytes on the wire than the plain body")
        }
        let received = try #require(peer.requests.first)
        #expect(received.head.lowercased().contains("content-encoding: gzip"))
        #expect(received.head.lowercased().contains("content-type: application/x-www-form-urlencoded"))
        #expect(received.body.count < original.count)
        #expect(try Self.gunzip(received.body) == original)
    }

    /// Decodes `bytes` with the system's `gzip -dc`: an independent check of the encoder.
    static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-dc"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // The body is small (a few KiB), well under a pipe buffer, so writing before reading cannot deadlock.
        input.fileHandleForWriting.write(Data(bytes))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return Array(data)
    }
}
