import FeatureModel
import Foundation
import LoadRunner
import Testing

@Suite struct PacingAndMetricsTests {
    @Test("shared-iterations starts claimed iterations until all are claimed or time runs out")
    func sharedIterations() throws {
        let pacing = try #require(ClosedSchedule(.sharedIterations(.init(vus: 2, iterations: 3, maxDuration: .seconds(10)))))
        #expect(pacing.decide(vu: 0, vuIteration: 0, claimed: 0, elapsed: .zero) == .start)
        #expect(pacing.decide(vu: 1, vuIteration: 5, claimed: 2, elapsed: .seconds(9)) == .start)
        #expect(pacing.decide(vu: 0, vuIteration: 1, claimed: 3, elapsed: .zero) == .stop(.iterationsDone))
        #expect(pacing.decide(vu: 0, vuIteration: 1, claimed: 1, elapsed: .seconds(10)) == .stop(.maxDuration))
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

    @Test("a saved histogram answers every percentile, min and max exactly as the live one did")
    func histogramExactAfterSave() throws {
        var generator = SplitMix64(seed: 7)
        for trial in 0..<200 {
            var live = LatencyHistogram()
            let samples = 1 + Int(generator.next() % 40)
            for _ in 0..<samples { live.record(microseconds: 1 + generator.next() % 9_000) }
            let saved = try JSONDecoder().decode(LatencyHistogram.self, from: JSONEncoder().encode(live))
            for p in [0.0, 50, 90, 95, 99, 99.9, 100] {
                #expect(saved.percentile(p) == live.percentile(p), "trial \(trial) p\(p)")
            }
            #expect(saved.max == live.max && saved.min == live.min && saved.count == live.count)
            #expect(LatencySummary(saved) == LatencySummary(live))
        }
    }

    @Test("the recorder folds samples into tagged series: requests by status, edits, errors, time buckets")
    func recorderSeries() {
        let recorder = ScenarioRecorder(scenario: "s", operations: ["applyEdits", "query"], layers: [0, 0], keepIds: true)
        for index in 0..<10 {
            recorder.iterationStarted()
            var sample = IterationSample(operation: index % 2, intendedStart: .milliseconds(index * 100), end: .milliseconds(index * 100 + 50))
            sample.requests = [
                RequestSample(status: index == 3 ? 503 : 200, duration: .milliseconds(40), bytesSent: 10, bytesReceived: 20, failed: index == 3)
            ]
            if index % 2 == 0 {
                sample.editsApplied = 2
                sample.addedObjectIds = [Int64(index), Int64(index + 100)]
            }
            if index == 3 { sample.fail("http 503") }
            recorder.record(sample)
        }
        recorder.recordDropped(at: .milliseconds(1500))
        let snapshot = recorder.snapshot()
        let series = snapshot.series(scenario: "s", operations: recorder.operations, tags: ["team": "gis"])
        let requests = series.filter { $0.metric == .httpReqs }
        #expect(requests.reduce(0) { $0 + $1.count } == 10)
        #expect(requests.first { $0.tags["status"] == "503" }?.tags["operation"] == "query")
        #expect(series.allSatisfy { $0.tags["team"] == "gis" && $0.tags["scenario"] == "s" })
        let failed = series.first { $0.metric == .httpReqFailed && $0.tags["status"] == "503" }
        #expect(failed?.passes == 1)
        #expect(series.first { $0.metric == .edits && $0.tags["operation"] == "applyEdits" }?.count == 10)
        #expect(series.first { $0.metric == .droppedIterations }?.count == 1)
        #expect(snapshot.ids[0]?.addedObjectIds.count == 10)
        #expect(snapshot.operations[1].errors == ["http 503": 1])
        let buckets = snapshot.timeSeries(scenario: "s", operations: recorder.operations)
        #expect(buckets.reduce(0) { $0 + $1.requests } == 10)
        #expect(buckets.reduce(0) { $0 + $1.droppedIterations } == 1)
        #expect(buckets.map(\.second).max() == 1)
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

@Suite struct IdPoolTests {
    @Test("the pool keeps at most its capacity, replacing at random once full, so long runs of adds stay flat")
    func bounded() {
        let pool = IdPool(ids: [], seed: 1, capacity: 100)
        pool.add(Array(1...1_000))
        #expect(pool.count == 100)
        let sample = Set(pool.sample(1_000))
        #expect(sample.allSatisfy { (1...1_000).contains($0) })
        #expect(sample.contains { $0 > 100 }, "later IDs replaced earlier ones")
        #expect(pool.take(30).count == 30)
        #expect(pool.count == 70)
    }

    @Test("borrowing ignores the deletes' reserve: a table smaller than the reserve still lends each feature to one VU at a time")
    func borrow() {
        // customerorders has 7 orders; a sampling pool keeps a reserve of 10 from deletes.
        let pool = IdPool(ids: Array(1...7), seed: 3, reserve: 10)
        #expect(pool.take(1).isEmpty, "deletes keep the reserve")
        var lent: [Int64] = []
        while let id = pool.borrow() { lent.append(id) }
        #expect(lent.sorted() == Array(1...7), "every feature lent once, none twice")
        #expect(pool.borrow() == nil)
        pool.add([lent[0]])
        #expect(pool.borrow() == lent[0])
    }
}

@Suite struct TimeSeriesSealingTests {
    @Test("per-second latencies older than two seconds are kept sparse, and come back whole, late samples included")
    func sealing() {
        let recorder = ScenarioRecorder(scenario: "s", operations: ["op"], layers: [0], keepIds: false)
        func sample(second: Int, milliseconds: Int) -> IterationSample {
            var sample = IterationSample(operation: 0, intendedStart: .seconds(second), end: .seconds(second) + .milliseconds(10))
            sample.requests = [RequestSample(status: 200, duration: .milliseconds(milliseconds), failed: false)]
            return sample
        }
        for second in 0..<10 {
            for index in 0..<5 {
                recorder.iterationStarted()
                recorder.record(sample(second: second, milliseconds: 10 + index))
            }
        }
        recorder.iterationStarted()
        recorder.record(sample(second: 1, milliseconds: 500))  // late, for a sealed second
        let series = recorder.snapshot().timeSeries(scenario: "s", operations: ["op"])
        #expect(series.map(\.second) == Array(0..<10))
        #expect(series[1].latency.count == 6 && series[1].requests == 6)
        #expect((series[1].latency.max ?? 0) >= 495_000)
        #expect(series.allSatisfy { $0.latency.significantDigits == 2 })
        #expect(series[5].latency.count == 5 && (series[5].latency.min ?? 0) >= 9_900 && (series[5].latency.max ?? .max) <= 14_100)
    }
}
