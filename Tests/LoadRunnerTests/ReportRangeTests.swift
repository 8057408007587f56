import FeatureModel
import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// Saved reports with numbers out of range (issue 32, item 4): each is refused where it is read, with the field
/// named, and nothing that is accepted can trap later in a renderer or a merge.
@Suite struct ReportRangeTests {
    /// A genuine report: a run of the in-memory fake service, as JSON.
    static func reportJSON() async throws -> [String: Any] {
        let report = try await ScenarioRunnerTests.run(ScenarioRunnerTests.plan(), service: ScenarioRunnerTests.FakeService())
        let data = try ReportFormat.json.render(report)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func data(_ object: [String: Any]) throws -> Data { try JSONSerialization.data(withJSONObject: object) }

    /// `object` with the value at `path` (keys and indexes) replaced by `value`.
    static func replacing(_ object: Any, at path: ArraySlice<Any>, with value: Any) -> Any {
        guard let step = path.first else { return value }
        if let key = step as? String, var dictionary = object as? [String: Any], let inner = dictionary[key] {
            dictionary[key] = replacing(inner, at: path.dropFirst(), with: value)
            return dictionary
        }
        if let index = step as? Int, var array = object as? [Any], array.indices.contains(index) {
            array[index] = replacing(array[index], at: path.dropFirst(), with: value)
            return array
        }
        return object
    }

    /// `object` as JSON with the value at `path` (`metrics.0.count`) replaced by the JSON text `literal`, exactly as
    /// written (a number beyond `Int64` or `Double` included).
    static func data(_ object: [String: Any], setting path: String, to literal: String) throws -> Data {
        let steps: [Any] = path.split(separator: ".").map { Int($0).map { $0 as Any } ?? String($0) }
        let marked = try #require(replacing(object, at: steps[...], with: "@@hostile@@") as? [String: Any])
        let text = String(decoding: try data(marked), as: UTF8.self).replacingOccurrences(of: "\"@@hostile@@\"", with: literal)
        return Data(text.utf8)
    }

    /// The paths of every number in `object`.
    static func numberPaths(_ object: Any, prefix: [Any] = []) -> [[Any]] {
        if let dictionary = object as? [String: Any] {
            return dictionary.keys.sorted().flatMap { numberPaths(dictionary[$0]!, prefix: prefix + [$0]) }
        }
        if let array = object as? [Any] { return array.indices.flatMap { numberPaths(array[$0], prefix: prefix + [$0]) } }
        return object is NSNumber && !(object is Bool) ? [prefix] : []
    }

    /// Decodes `data`; if that succeeds, renders every format and merges it with a second segment of itself, all of
    /// which must not trap. Returns the decoding error's text, or nil.
    static func readAndUse(_ data: Data) -> String? {
        do {
            let report = try RunReport.decode(data)
            for format in ReportFormat.allCases { _ = try? format.render(report) }
            var first = report
            first.segment = "0:1/2"
            var second = report
            second.segment = "1/2:1"
            if let merged = try? ReportMerge.merge([("a", first), ("b", second)]) { _ = try? ReportFormat.md.render(merged) }
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test(
        "a count of 2^63-1, a negative count and other numbers out of range are refused, naming the field",
        arguments: [
            ("metrics.0.count", "9223372036854775807", "metrics[0]"), ("metrics.0.count", "-1", "metrics[0]"),
            ("metrics.0.count", "1e400", "number too large to read"), ("timeSeries.0.requests", "9223372036854775807", "timeSeries[0].requests"),
            ("timeSeries.0.requests", "99999999999999999999", "number too large to read"),
            ("scenarios.0.editsAppliedByEarlierAttempt", "9223372036854775807", "scenarios[0]"),
            ("startedAtEpochMilliseconds", "9223372036854775807", "startedAtEpochMilliseconds"), ("durationSeconds", "1e300", "durationSeconds"),
            ("timeSeries.0.second", "9223372036854775807", "timeSeries[0].second"),
            ("comparisons.0.candidateValue", "-1e308", "comparisons[0].candidateValue"),
        ])
    func outOfRange(path: String, literal: String, field: String) async throws {
        let problem = Self.readAndUse(try Self.data(try await Self.reportJSON(), setting: path, to: literal))
        #expect(problem?.contains(field) == true && problem?.contains("Swift.") == false, "\(problem ?? "accepted")")
    }

    @Test("histogram buckets whose counts add up past 2^64 are refused before a histogram is made of them")
    func histogramOverflow() async throws {
        let object = try await Self.reportJSON()
        let index = try #require((object["metrics"] as? [[String: Any]])?.firstIndex { $0["histogram"] != nil })
        let half = UInt64.max / 2 + 1
        let problem = Self.readAndUse(try Self.data(object, setting: "metrics.\(index).histogram.buckets", to: "[[1000,\(half)],[2000,\(half)]]"))
        #expect(problem?.contains("metrics[\(index)].histogram.buckets") == true, "\(problem ?? "accepted")")
        #expect(problem?.contains("add up to more than") == true && problem?.contains("Swift.") == false, "\(problem ?? "accepted")")
    }

    @Test("schema version -1 is invalid, not newer")
    func negativeSchemaVersion() async throws {
        var object = try await Self.reportJSON()
        object["schemaVersion"] = -1
        let problem = Self.readAndUse(try Self.data(object))
        #expect(problem?.contains("schema version -1 is invalid") == true, "\(problem ?? "accepted")")
    }

    @Test("merging reports whose counts are each in range but together exceed 2^53 is refused, not trapped")
    func mergeOverflow() async throws {
        let big = (1 as UInt64) << 52 + (1 as UInt64) << 51
        var first = try RunReport.decode(try Self.data(try await Self.reportJSON(), setting: "metrics.0.count", to: "\(big)"))
        first.segment = "0:1/2"
        var second = first
        second.segment = "1/2:1"
        let error = #expect(throws: ReportMerge.Problem.self) { try ReportMerge.merge([("a.json", first), ("b.json", second)]) }
        #expect(error?.description.contains("add up to more than 9007199254740992 (2^53) from b.json on") == true, "\(String(describing: error))")
    }

    @Test("random and boundary numbers in every numeric field never trap: the report is refused, or renders and merges")
    func fuzz() async throws {
        let object = try await Self.reportJSON()
        let paths = Self.numberPaths(object)
        #expect(paths.count > 50, "the fixture has numbers to fuzz")
        var random = SplitMix64(seed: 4)
        let boundaries = [
            "0", "-1", "1", "0.5", "2147483647", "3600000001", "9007199254740992", "9007199254740993", "6917529027641081856",
            "9223372036854775807", "-9223372036854775808", "18446744073709551615", "99999999999999999999", "1e308", "-1e308", "1e400",
        ]
        var refused = 0
        for _ in 0..<150 {
            var hostile: Any = object
            var literals: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let path = paths.randomElement(using: &random)!
                literals.append(
                    Bool.random(using: &random)
                        ? boundaries.randomElement(using: &random)! : String(Int64.random(in: Int64.min...Int64.max, using: &random)))
                hostile = Self.replacing(hostile, at: path[...], with: "@@hostile\(literals.count - 1)@@")
            }
            var text = String(decoding: try Self.data(try #require(hostile as? [String: Any])), as: UTF8.self)
            for (index, literal) in literals.enumerated() { text = text.replacingOccurrences(of: "\"@@hostile\(index)@@\"", with: literal) }
            if let problem = Self.readAndUse(Data(text.utf8)) {
                refused += 1
                #expect(!problem.contains("Swift.") && !problem.contains("DecodingError"), "\(problem)")
            }
        }
        #expect(refused > 0, "some of the hostile numbers are refused")
    }
}
