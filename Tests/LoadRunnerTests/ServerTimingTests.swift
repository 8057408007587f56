import FeatureServiceClient
import Testing

@testable import LoadRunner

/// The `Server-Timing` header the runner reads into the `server_duration` trend.
@Suite struct ServerTimingTests {
    func parse(_ headers: [(String, String)]) -> Duration? {
        RecordingTransport.serverDuration(headers.map { HTTPHeader($0.0, $0.1) })
    }

    @Test("dur= of any metric, in any case and spacing; the longest wins; junk is ignored")
    func parsing() {
        #expect(parse([("Server-Timing", "app;dur=12.5")]) == .microseconds(12_500))
        #expect(parse([("server-timing", "app; DUR = \"3.25\" ")]) == .microseconds(3_250))
        #expect(parse([("SERVER-TIMING", "cdn;desc=edge;dur=1, app;dur=40")]) == .milliseconds(40))
        #expect(parse([("Server-Timing", "db;dur=2"), ("Server-Timing", "app;dur=7")]) == .milliseconds(7))
        #expect(parse([("Server-Timing", "app;dur=abc, miss, x;dur=-1;dur=inf")]) == nil)
        #expect(parse([("Server-Timing", "app;desc=\"dur=5\"")]) == nil)
        #expect(parse([("Server-Timings", "app;dur=5"), ("Content-Type", "application/json")]) == nil)
        #expect(parse([("Server-Timing", "app;dur=3600000")]) == nil)
        #expect(parse([("Server-Timing", "dur=5")]) == nil, "the first element is the metric's name, not a parameter")
        #expect(parse([("Server-Timing", ";dur=5")]) == nil, "an empty name is no name: the first piece is the name")
    }

    @Test("numbers read exactly as Double(_:) reads them, plain decimals and the rest")
    func numbers() {
        for text in ["0.763", "12.5", "3600", "0.001", "123456.789012", "99999.999999999", "1e3", "5.", ".5", "+2.5", "1234567890123456"] {
            let expected = Double(text).flatMap { $0 < 3_600_000 ? Duration.microseconds(Int64(($0 * 1000).rounded())) : nil }
            #expect(parse([("Server-Timing", "app;dur=\(text)")]) == expected, "dur=\(text)")
        }
        #expect(parse([("Server-Timing", "app;dur=0.763")]) == .microseconds(763))
        #expect(parse([("Server-Timing", "app;dur=1.2.3")]) == nil)
    }

    @Test("an answer counts as failed when its first key is error, white space before it allowed")
    func errorEnvelopes() {
        #expect(RecordingTransport.isErrorEnvelope(Array(#"{"error":{"code":400}}"#.utf8)))
        #expect(RecordingTransport.isErrorEnvelope(Array(" \r\n\t{\"error\"".utf8)))
        #expect(!RecordingTransport.isErrorEnvelope(Array(#"{"addResults":[],"error":1}"#.utf8)))
        #expect(!RecordingTransport.isErrorEnvelope(Array(#"{"erro"#.utf8)))
        #expect(!RecordingTransport.isErrorEnvelope([]))
    }
}
