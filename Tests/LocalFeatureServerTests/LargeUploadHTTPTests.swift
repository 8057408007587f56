import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import LocalFeatureServer
import Testing

/// A 12 MB attachment through addAttachment, uploads and download, over real HTTP.
///
/// Parsing a large multipart body keeps a server thread busy for tens of seconds in a debug build, which would stall
/// every other test's server on a 2-core machine; `scripts/test` therefore runs this suite (and the client's
/// `LargeAttachmentTests`) on its own, after the parallel run.
@Suite struct LargeUploadHTTPTests {
    typealias W = AttachmentWire

    @Test("a 12 MB attachment streams through addAttachment, uploads and download byte for byte", .timeLimit(.minutes(3)))
    func largeFiles() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let layer = server.serviceURL + "/0"
                let large = W.bytes(12 << 20, seed: 99)
                let added = W.json(
                    try await transport.send(
                        W.multipart(
                            "\(layer)/4/addAttachment",
                            [.file(name: "attachment", filename: "large.bin", contentType: "application/octet-stream", bytes: large)])))
                let id = try #require(added["addAttachmentResult"]?["objectId"]?.intValue, "\(added)")
                let download = try await transport.send(HTTPRequest(url: "\(layer)/4/attachments/\(id)", timeout: .seconds(50)))
                #expect(download.body.count == large.count)
                #expect(download.body == large)

                let uploads = server.serviceURL + "/uploads"
                let item = try await UploadsHTTPTests.register(transport, uploads, name: "large.bin")
                let third = large.count / 3
                for partId in 1...3 {
                    let end = partId == 3 ? large.count : partId * third
                    try await UploadsHTTPTests.uploadPart(transport, uploads, item, partId, Array(large[(partId - 1) * third..<end]))
                }
                _ = try await transport.send(HTTPRequest.form(url: "\(uploads)/\(item)/commit", fields: [FormField("f", "json")]))
                let viaUpload = W.json(try await transport.send(W.multipart("\(layer)/4/addAttachment", [.field("uploadId", item)])))
                let second = try #require(viaUpload["addAttachmentResult"]?["objectId"]?.intValue, "\(viaUpload)")
                #expect(try await transport.send(HTTPRequest(url: "\(layer)/4/attachments/\(second)", timeout: .seconds(50))).body == large)
            }
        }
    }
}
