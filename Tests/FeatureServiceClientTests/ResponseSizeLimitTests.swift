import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

/// Bounded client memory. Before: `featureload run` against a server streaming an endless body grew past 6 GB in
/// 9 s, because the transport held every response body whole.
@Suite struct ResponseSizeLimitTests {
    @Test("an endless response body fails the request at the limit with a clear error, instead of growing without end", .timeLimit(.minutes(1)))
    func endlessBody() async throws {
        let peer = try LoopbackPeer(endlessBody: ())
        defer { peer.stop() }
        let configuration = CurlTransportConfiguration(requestTimeout: .seconds(30), maximumResponseSize: 4 << 20)
        try await withCurlTransport(configuration: configuration) { transport in
            do {
                _ = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(peer.port)/arcgis/rest/services/x/FeatureServer/0/query?f=json"))
                Issue.record("an endless body was accepted")
            } catch let error as TransportError {
                #expect(error.kind == .responseTooLarge, "\(error)")
                #expect(error.description.contains("4194304 bytes") && error.description.contains("--max-response-size"), "\(error)")
            }
        }
        // No wall-clock bound: without the limit the request would end by its 30 s timeout (`timedOut`, not
        // `responseTooLarge`), which the kind above already tells apart however loaded the machine is.
        // The transfer stopped near the limit (the peer may have a few socket buffers more in flight).
        #expect(peer.streamedBytes < 64 << 20, "the peer wrote \(peer.streamedBytes) bytes")
    }

    @Test("a body at the limit is still delivered whole")
    func atLimit() async throws {
        let body = [UInt8](repeating: 7, count: 1 << 20)
        let peer = try LoopbackPeer { _ in LoopbackPeer.response(body: body) }
        defer { peer.stop() }
        try await withCurlTransport(configuration: CurlTransportConfiguration(maximumResponseSize: 1 << 20)) { transport in
            let response = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(peer.port)/x"))
            #expect(response.body == body && response.fileBytes == nil)
        }
    }

    @Test("an attachment larger than the memory limit downloads, streamed to its file; an ArcGIS error still reads as one", .timeLimit(.minutes(1)))
    func streamedDownload() async throws {
        let folder = try AttachmentIntegrationTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        @Sendable func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let source = path("big.bin")
        try LargeAttachmentTests.generate(source, size: 6 << 20, seed: 6)
        try await withTestServer { server in
            try await withCurlTransport(configuration: CurlTransportConfiguration(maximumResponseSize: 1 << 20)) { transport in
                let layer = FeatureLayerClient(url: server.serviceURL + "/0", transport: transport)
                let added = try await layer.addAttachment(objectId: 1, file: source)
                let id = try #require(added.objectId)
                let target = path("downloaded.bin")
                #expect(try await layer.downloadAttachment(objectId: 1, attachmentId: id, to: target) == 6 << 20)
                #expect(try LargeAttachmentTests.sameBytes(source, target))
                #expect(!FileManager.default.fileExists(atPath: target + ".partial"))
                await #expect(throws: FeatureServiceError.self) {
                    try await layer.downloadAttachment(objectId: 1, attachmentId: 999_999, to: path("missing.bin"))
                }
                #expect(!FileManager.default.fileExists(atPath: path("missing.bin")))
                #expect(!FileManager.default.fileExists(atPath: path("missing.bin.partial")))
            }
        }
    }
}
