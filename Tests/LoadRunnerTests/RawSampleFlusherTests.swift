import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

@testable import LoadRunner

/// The raw-sample flusher on a manual clock: it writes what the VUs queued when the run's clock says, never on wall
/// time, and the rest when the run ends.
@Suite struct RawSampleFlusherTests {
    /// Waits (a bounded number of turns, each giving the flusher's task the chance to run) until `condition` holds.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<2_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return condition()
    }

    static func lines(_ path: String) -> [Substring] {
        (try? String(contentsOfFile: path, encoding: .utf8)).map { $0.split(separator: "\n") } ?? []
    }

    static func batch(status: Int) -> RawSampleBatch {
        var sample = IterationSample(operation: 0, intendedStart: .zero)
        sample.requests = [RequestSample(status: status, duration: .milliseconds(1), failed: false, started: .now)]
        return RawSampleBatch(labels: RawSampleLabels(scenario: "s", operation: "query", tags: [:]), sample: sample)
    }

    @Test("queued requests are written each 200 ms of the run's clock, not before; the last ones when the flusher ends")
    func flushesOnTheRunsClock() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("raw-flusher-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("requests.csv").path
        let writer = try RawSampleWriter(destinations: [RawSampleDestination(format: .csv, path: path)])
        let clock = ManualClock(advancesWhenSleeping: false)
        let flusher = Task { await writer.flush(on: clock) }

        writer.append(Self.batch(status: 200))
        #expect(await Self.eventually { clock.waitingSleepers == 1 })
        // The clock has not moved: however long the wall clock runs, only the header is written.
        try await Task.sleep(for: .milliseconds(20))
        #expect(Self.lines(path).count == 1)

        clock.advance(by: .milliseconds(199))
        #expect(clock.waitingSleepers == 1 && Self.lines(path).count == 1)
        clock.advance(by: .milliseconds(1))
        // Woken, it writes the queue and sleeps again.
        #expect(await Self.eventually { Self.lines(path).count == 2 && clock.waitingSleepers == 1 })
        #expect(Self.lines(path)[1].contains(",query,200,"))

        // Queued after the last flush and the flusher ended (the run's scenarios are done): written at once.
        writer.append(Self.batch(status: 503))
        flusher.cancel()
        await flusher.value
        #expect(Self.lines(path).count == 3)
        #expect(Self.lines(path)[2].contains(",query,503,"))
        try await writer.finish()
        #expect(Self.lines(path).count == 3)
        #expect(clock.sleeps.isEmpty || clock.sleeps.allSatisfy { $0 == .milliseconds(200) })
    }
}
