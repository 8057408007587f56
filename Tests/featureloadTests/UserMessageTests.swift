import FeatureloadTestSupport
import Foundation
import Testing

@testable import featureload

/// What the CLI prints names files, fields, options and scenario keys, never a Swift type.
@Suite struct UserMessageTests {
    /// A Swift type or enum case leaking into a message: `DecodingError.dataCorrupted`, `CancellationError()`,
    /// `CurlTransportConfiguration`, `RetryPolicy`, Foundation's error domains.
    static let typeName =
        #"\b[A-Z][A-Za-z0-9]*(?:Error|Configuration|Policy|Options|Transport|Context|Key)\b|NS[A-Z][A-Za-z]+Domain|\b[A-Z][A-Za-z]+\(\)|\.(?:dataCorrupted|keyNotFound|typeMismatch|valueNotFound)\b|\bSwift\.|\bFoundation\."#

    static func leaks(_ text: String) -> [String] {
        // Simple word boundaries: under Unicode's, `DecodingError.dataCorrupted` is one word.
        guard let regex = try? Regex(typeName).wordBoundaryKind(.simple) else { return ["(pattern did not compile)"] }
        return text.matches(of: regex).map { String(text[$0.range]) }
    }

    @Test("decoding, cancellation and file errors read as what went wrong where")
    func describe() throws {
        struct Report: Decodable { var schema: String }
        let truncated = #expect(throws: DecodingError.self) { try JSONDecoder().decode(Report.self, from: Data(#"{"schema": "#.utf8)) }
        let missing = #expect(throws: DecodingError.self) { try JSONDecoder().decode(Report.self, from: Data("{}".utf8)) }
        let noFile = #expect(throws: (any Error).self) { try Data(contentsOf: URL(fileURLWithPath: "/nonexistent/report.json")) }
        let texts =
            [truncated, missing].compactMap { $0.map(UserMessage.describe) } + [
                noFile.map(UserMessage.describe) ?? "", UserMessage.describe(CancellationError()),
            ]
        #expect(texts[0] == "not valid JSON, or it holds a number too large to read", "\(texts[0])")
        #expect(texts[1] == "schema is missing", "\(texts[1])")
        #expect(texts[2] == "/nonexistent/report.json: no such file or directory", "\(texts[2])")
        #expect(texts[3] == "interrupted")
        for text in texts { #expect(Self.leaks(text).isEmpty, "\(text)") }
    }

    @Test("the pattern catches the type names users saw before")
    func patternCatches() {
        for leaked in [
            "DecodingError.dataCorrupted(Context(…))", "CancellationError()", "raise CurlTransportConfiguration.maximumResponseSize",
            "retry with a RetryPolicy", "Error Domain=NSCocoaErrorDomain Code=260",
        ] {
            #expect(!Self.leaks(leaked).isEmpty, "\(leaked)")
        }
        #expect(Self.leaks("scenarios.single.vus: expected a whole number, got 'many'. Fix: write `vus: 8`").isEmpty)
    }

    @Test("every failure the CLI is driven into here prints no Swift type name", .timeLimit(.minutes(2)))
    func commandLineMessages() async throws {
        let directory = try TemporaryDirectory()
        let truncated = directory.path + "/truncated.json"
        try #"{"schema": "featureload.run-report", "schemaVersion": 2, "plan": {"#.write(toFile: truncated, atomically: true, encoding: .utf8)
        let bare = directory.path + "/bare.json"
        try #"{"schema": "featureload.run-report", "schemaVersion": 2}"#.write(toFile: bare, atomically: true, encoding: .utf8)
        let broken = directory.path + "/broken.yaml"
        try "version: 2\nname: b\ntarget: local\nscenarios:\n  s:\n    executor: shared-iterations\n    vus: many\n".write(
            toFile: broken, atomically: true, encoding: .utf8)
        let commands: [[String]] = [
            ["report", truncated, "--format", "md"],
            ["report", bare, "--format", "md"],
            ["report", directory.path, "--format", "md"],
            ["compare", truncated, bare],
            ["report", "merge", truncated, bare, "-o", directory.path + "/merged.json"],
            ["validate", broken],
            ["run", directory.path + "/missing.yaml"],
            ["run", broken],
            ["apply", directory.path + "/missing.geojson", "--to", "local"],
            ["run", broken, "--target", "http://127.0.0.1:1/arcgis/rest/services/x/FeatureServer"],
        ]
        for command in commands {
            let result = try await Featureload.run(command)
            #expect(result.status != 0, "\(command)")
            let text = result.output + result.errorOutput
            #expect(Self.leaks(text).isEmpty, "\(command.joined(separator: " ")): \(text)")
        }
    }
}
