import FeatureServiceClient
import Foundation
import Testing

@testable import LoadRunner

/// The raw-sample lines of `run --out csv=…/json=…`, formatted by hand: numbers, quoting, escapes, and where an
/// iteration's edits go.
@Suite struct RawSampleLineTests {
    static func batch(
        requests: [RequestSample], scenario: String = "a,\"b\"", tags: [String: String] = ["team": "qa & perf", "env": "ci"]
    ) -> RawSampleBatch {
        var sample = IterationSample(operation: 0, intendedStart: .zero)
        sample.requests = requests
        sample.editsApplied = 3
        sample.retries = 1
        return RawSampleBatch(labels: RawSampleLabels(scenario: scenario, operation: "applyEdits", tags: tags), sample: sample)
    }

    static let anchor = ContinuousClock.now
    static let clock = (anchor: anchor, wallMicroseconds: Int64(1_764_600_000_123_456))

    @Test("csv: one line per request, quoted where needed, the iteration's edits and retries on its last line")
    func csvLines() {
        let requests = [
            RequestSample(status: 503, duration: .microseconds(1_500), bytesSent: 10, bytesReceived: 20, failed: true, started: Self.anchor),
            RequestSample(
                status: 200, duration: .microseconds(2_000_001), bytesSent: 11, bytesReceived: 21, failed: false, serverDuration: .microseconds(250),
                started: Self.anchor.advanced(by: .milliseconds(5))),
        ]
        var bytes: [UInt8] = []
        let batch = Self.batch(requests: requests, tags: ["team": "qa & perf", "env": "ci", "branch": "main"])
        RawSampleLine.append(batch, format: .csv, to: &bytes, clock: Self.clock)
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0] == #"1764600000.123456,"a,""b""",applyEdits,503,1,1.500,,10,20,0,0,0,0,branch=main&env=ci&team=qa %26 perf"#)
        #expect(lines[1] == #"1764600000.128456,"a,""b""",applyEdits,200,0,2000.001,0.250,11,21,3,0,0,1,branch=main&env=ci&team=qa %26 perf"#)
    }

    @Test(
        "csv: a field a spreadsheet would run as a formula is quoted behind a '",
        arguments: [
            ("=HYPERLINK(\"http://x\")", #""'=HYPERLINK(""http://x"")""#), ("+1", #""'+1""#), ("-2", #""'-2""#), ("@SUM(A1)", #""'@SUM(A1)""#),
            ("\tcmd", "\"'\tcmd\""), ("load-1", "load-1"), ("a=b", "a=b"),
        ])
    func csvFormulas(_ text: String, _ written: String) {
        var bytes: [UInt8] = []
        RawSampleLine.csvText(text, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == written)
    }

    @Test("json: one object per request with every column, strings escaped, no server time as null")
    func jsonLines() throws {
        let requests = [RequestSample(status: RequestSample.interrupted, duration: .milliseconds(7), failed: true, started: Self.anchor)]
        let batch = Self.batch(requests: requests, scenario: "line\nbreak \"quoted\" \u{01}")
        var bytes: [UInt8] = []
        RawSampleLine.append(batch, format: .json, to: &bytes, clock: Self.clock)
        #expect(bytes.last == UInt8(ascii: "\n"))
        let object = try #require(JSONSerialization.jsonObject(with: Data(bytes.dropLast())) as? [String: Any])
        #expect(Set(object.keys) == Set(RawSampleDestination.columns))
        #expect(object["scenario"] as? String == "line\nbreak \"quoted\" \u{01}")
        #expect(object["status"] as? String == "interrupted")
        #expect(object["failed"] as? Bool == true)
        #expect(object["server_ms"] is NSNull)
        #expect(object["duration_ms"] as? Double == 7)
        #expect(object["edits"] as? Int == 3)
        #expect((object["tags"] as? [String: String]) == ["team": "qa & perf", "env": "ci"])
    }

    @Test(
        "decimal places are exact for any value, negative and zero included",
        arguments: [
            (Int64(0), 3, "0.000"), (Int64(5), 3, "0.005"), (Int64(1_000), 3, "1.000"), (Int64(-1_234), 3, "-1.234"), (Int64(42), 0, "42"),
            (Int64.max, 6, "9223372036854.775807"),
        ])
    func decimals(value: Int64, places: Int, text: String) {
        var bytes: [UInt8] = []
        RawSampleLine.decimal(value, places: places, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == text)
    }

    @Test("--out values: csv= and json= name files; anything else is the report directory")
    func destinations() {
        #expect(RawSampleDestination(option: "csv=out/a.csv") == RawSampleDestination(format: .csv, path: "out/a.csv"))
        #expect(RawSampleDestination(option: "json=a.json.gz")?.isCompressed == true)
        #expect(RawSampleDestination(option: "Reports") == nil)
        #expect(RawSampleDestination(option: "csv=") == nil)
        #expect(RawSampleDestination(option: "xml=a.xml") == nil)
    }

    @Test("a gzip stream written in many pieces is one gzip member whose trailer counts every byte")
    func gzipStream() throws {
        let stream = try #require(GzipStream())
        var output: [UInt8] = []
        var input: [UInt8] = []
        for index in 0..<2_000 {
            let piece = Array("line \(index), with some repetition repetition repetition\n".utf8)
            input += piece
            try stream.write(piece) { output += $0 }
        }
        try stream.finish { output += $0 }
        #expect(Array(output.prefix(3)) == [0x1F, 0x8B, 0x08])
        let size = output.suffix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        #expect(size == input.count)
        #expect(output.count < input.count / 4)
    }

    @Test("GitHub annotations escape what the runner reads as syntax: % line breaks, and : , in the title")
    func ciEscapes() {
        #expect(
            CISummary.githubError(title: "featureload: a, b", message: "50% failed\nnext")
                == "::error title=featureload%3A a%2C b::50%25 failed%0Anext")
    }
}
