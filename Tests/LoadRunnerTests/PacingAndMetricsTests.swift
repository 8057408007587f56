import FeatureModel
import Foundation
import LoadRunner
import Testing

@Suite struct PacingAndMetricsTests {
    @Test("shared-iterations starts claimed iterations until all are claimed or time runs out")
    func sharedIterations() {
        let pacing = SharedIterations(iterations: 3, maxDuration: .seconds(10))
        #expect(pacing.decide(claimed: 0, elapsed: .zero) == .start(iteration: 0))
        #expect(pacing.decide(claimed: 2, elapsed: .seconds(9)) == .start(iteration: 2))
        #expect(pacing.decide(claimed: 3, elapsed: .zero) == .stop(.iterationsDone))
        #expect(pacing.decide(claimed: 1, elapsed: .seconds(10)) == .stop(.maxDuration))
    }

    @Test("latency histograms round-trip through JSON sparsely and merge exactly")
    func histogramRoundTrip() throws {
        var a = LatencyHistogram()
        var b = LatencyHistogram()
        for value in 1...1000 { a.record(microseconds: UInt64(value) * 7) }
        for value in 1...500 { b.record(.milliseconds(value)) }
        let data = try JSONEncoder().encode(a)
        #expect(data.count < 20_000)
        let decoded = try JSONDecoder().decode(LatencyHistogram.self, from: data)
        #expect(decoded == a)
        #expect(decoded.count == 1000)
        #expect(decoded.percentile(50) == a.percentile(50))

        var merged = a
        merged.merge(b)
        var mergedDecoded = decoded
        mergedDecoded.merge(try JSONDecoder().decode(LatencyHistogram.self, from: JSONEncoder().encode(b)))
        #expect(merged == mergedDecoded)
        #expect(merged.count == 1500)
        #expect(merged.max >= 499_000)
    }

    @Test("metrics merge counters, errors and latencies")
    func metricsMerge() {
        var a = ScenarioMetrics()
        a.requests = 2
        a.editsSent = 20
        a.editsSucceeded = 19
        a.editsFailed = 1
        a.errors = ["x": 1]
        a.latency.record(microseconds: 100)
        var b = ScenarioMetrics()
        b.requests = 3
        b.failedRequests = 1
        b.errors = ["x": 2, "y": 1]
        b.latency.record(microseconds: 300)
        a.merge(b)
        #expect(a.requests == 5)
        #expect(a.failedRequests == 1)
        #expect(a.errors == ["x": 3, "y": 1])
        #expect(a.latency.count == 2)
    }

    static let layer = LayerInfo(
        id: 0, name: "Parks", type: "Feature Layer", geometryType: .point, objectIdField: "OBJECTID",
        globalIdField: "GlobalID",
        fields: [
            Field(name: "OBJECTID", type: .oid, nullable: false, editable: false),
            Field(name: "GlobalID", type: .globalID, length: 38, nullable: false, editable: false),
            Field(name: "name", type: .string, length: 12, nullable: false),
            Field(name: "state", type: .string, length: 2),
            Field(
                name: "category", type: .smallInteger,
                domain: .codedValue(name: "c", codedValues: [CodedValue(name: "A", code: 1), CodedValue(name: "B", code: 2)])),
            Field(name: "area", type: .double, domain: .range(name: "r", minValue: 0, maxValue: 5)),
            Field(name: "visitors", type: .integer, domain: .range(name: "v", minValue: 10, maxValue: 20)),
            Field(name: "established", type: .date),
            Field(name: "locked", type: .string, editable: false),
        ])

    @Test("generated features respect types, lengths and domains, and are reproducible")
    func generator() {
        let generator = FeatureGenerator(layer: Self.layer, seed: 42)
        for index in 0..<500 {
            let feature = generator.feature(at: index)
            #expect(feature.attributes["OBJECTID"] == nil)
            #expect(feature.attributes["GlobalID"] == nil)
            #expect(feature.attributes["locked"] == nil)
            let name = feature.attributes["name"]?.stringValue ?? ""
            #expect(!name.isEmpty && name.count <= 12)
            #expect(feature.attributes["state"]?.stringValue?.count == 2)
            #expect([1, 2].contains(feature.attributes["category"]?.intValue ?? 0))
            let area = feature.attributes["area"]?.doubleValue ?? -1
            #expect(area >= 0 && area <= 5)
            let visitors = feature.attributes["visitors"]?.intValue ?? 0
            #expect(visitors >= 10 && visitors <= 20)
            #expect(feature.attributes["established"]?.intValue != nil)
            guard case .point(let x, let y, _, _) = feature.geometry else {
                Issue.record("expected a point")
                return
            }
            #expect(x >= -125 && x <= -66 && y >= 25 && y <= 49)
        }
        #expect(generator.feature(at: 7) == FeatureGenerator(layer: Self.layer, seed: 42).feature(at: 7))
        #expect(generator.feature(at: 7) != generator.feature(at: 8))
    }
}
