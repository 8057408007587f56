import FeatureServiceClient
@testable import LoadRunner
import Testing

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
    }
}
