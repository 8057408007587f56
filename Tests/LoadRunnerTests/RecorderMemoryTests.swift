import FeatureModel
import Testing

@testable import LoadRunner

/// What keeps a long run's recorder flat: every second's latency ends up sparse, whatever put it there.
@Suite struct RecorderMemoryTests {
    func sample(second: Int, milliseconds: Int) -> IterationSample {
        var sample = IterationSample(operation: 0, intendedStart: .seconds(second), end: .seconds(second) + .milliseconds(10))
        sample.requests = [RequestSample(status: 200, duration: .milliseconds(milliseconds), failed: false)]
        return sample
    }

    @Test("a second reopened by a late sample, and a second with only dropped iterations, are sealed again")
    func resealing() throws {
        let recorder = ScenarioRecorder(scenario: "s", operations: ["op"], layers: [0], keepIds: false)
        for second in 0..<6 {
            recorder.iterationStarted()
            recorder.record(sample(second: second, milliseconds: 10 + second))
        }
        recorder.iterationStarted()
        recorder.record(sample(second: 1, milliseconds: 700))  // late: reopens second 1
        recorder.recordDropped(at: .seconds(7))
        #expect(recorder.snapshot().liveBuckets.contains(1 << 16))
        for second in 10..<12 {
            recorder.iterationStarted()
            recorder.record(sample(second: second, milliseconds: 20))
        }
        let state = recorder.snapshot()
        #expect(Set(state.liveBuckets.map { $0 >> 16 }) == [10, 11], "only the last seconds stay live")
        #expect(state.buckets.values.filter { $0.latency.significantDigits == 2 }.count <= 2)
        let series = state.timeSeries(scenario: "s", operations: ["op"])
        let one = try #require(series.first { $0.second == 1 })
        #expect(one.latency.count == 2 && one.latency.max == 700_000 && one.latency.min == 11_000)
        #expect(series.first { $0.second == 7 }?.droppedIterations == 1)
    }

    @Test("sparse latency gives back the live histogram's percentiles exactly, and merges")
    func sparseExact() {
        var live = LatencyHistogram(significantDigits: 2)
        var random = SplitMix64(seed: 3)
        for _ in 0..<500 { live.record(microseconds: 1 + random.next() % 50_000) }
        let sparse = SparseLatency(live)
        let back = LatencyHistogram(sparse)
        for p in [0.0, 50, 90, 99, 99.9, 100] { #expect(back.percentile(p) == live.percentile(p)) }
        #expect(sparse.count == 500)
        var doubled = sparse
        doubled.merge(sparse)
        #expect(doubled.count == 1000 && doubled.max == sparse.max && doubled.min == sparse.min)
    }
}

@Suite struct HistogramMergeTests {
    @Test("histograms of different precision merge value by value instead of trapping")
    func mixedPrecision() {
        var fine = LatencyHistogram()
        var coarse = LatencyHistogram(significantDigits: 2)
        for value: UInt64 in [1_000, 2_000, 3_000] { fine.record(microseconds: value) }
        for value: UInt64 in [10_000, 20_000] { coarse.record(microseconds: value) }
        fine.merge(coarse)
        #expect(fine.count == 5 && fine.max >= 20_000 && fine.max < 20_200)
        coarse.merge(fine)
        #expect(coarse.count == 7)
        fine.merge(LatencyHistogram(significantDigits: 1))
        #expect(fine.count == 5)
    }
}
