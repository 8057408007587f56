import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

/// `serve --standard-max-record-count N --tile-max-record-count N` through the binary: the layer document states
/// them, and a value below 1 is a usage error naming the option.
@Suite struct ServeLimitsCommandTests {
    @Test("the limits reach the layer document; 0 is refused before anything starts", .timeLimit(.minutes(1)))
    func limits() async throws {
        for option in ["--standard-max-record-count", "--tile-max-record-count"] {
            let refused = try await Featureload.run(["serve", "--port", "0", option, "0"])
            #expect(refused.status == 64, "\(option)")
            #expect(refused.errorOutput.contains("\(option) must be at least 1, got 0"), Comment(rawValue: refused.errorOutput))
        }
        let serve = try BackgroundCommand(["serve", "--port", "0", "--standard-max-record-count", "4000", "--tile-max-record-count", "300"])
        defer { serve.stop() }
        let started = serve.read { $0.contains("listening on ") }
        let service = try #require(BackgroundCommand.serviceURL(in: started), Comment(rawValue: started + serve.errorOutput))
        let body = try await withCurlTransport { transport in
            try await transport.send(HTTPRequest(method: .get, url: service + "/0?f=json")).body
        }
        let text = String(decoding: body, as: UTF8.self)
        for pair in [#""standardMaxRecordCount":4000"#, #""tileMaxRecordCount":300"#, #""maxRecordCount":2000"#] {
            #expect(text.contains(pair), Comment(rawValue: text))
        }
    }
}
