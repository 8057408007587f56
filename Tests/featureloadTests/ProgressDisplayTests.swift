import Synchronization
import Testing

@testable import featureload

/// apply hands its progress line over as a closure after every batch: the line is formatted only when it is drawn.
@Suite struct ProgressDisplayTests {
    @Test("a line is made only when it is drawn: never when quiet, once within an interval")
    func madeOnlyWhenDrawn() {
        let made = Mutex(0)
        let line = { () -> [String] in
            made.withLock { $0 += 1 }
            return ["1 of 2 batches"]
        }
        let quiet = ProgressDisplay(mode: .off)
        for _ in 0..<3 { quiet.show(line) }
        #expect(made.withLock { $0 } == 0)
        // The first show prints; the next ones fall within the hour and make nothing.
        let lines = ProgressDisplay(mode: .lines(every: .seconds(3600)))
        for _ in 0..<3 { lines.show(line) }
        #expect(made.withLock { $0 } == 1)
    }
}
