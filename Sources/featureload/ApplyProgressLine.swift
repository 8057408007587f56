import BatchApply
import Foundation
import Synchronization

/// Shows an apply's progress: on a terminal one line redrawn in place (edits done, rate, ETA); otherwise a plain
/// line every `interval`; nothing when quiet.
final class ApplyProgressLine: Sendable {
    let mode: ProgressDisplay.Mode
    private let state = Mutex<(drawn: Bool, last: ContinuousClock.Instant?)>((false, nil))
    private let clock = ContinuousClock()

    init(mode: ProgressDisplay.Mode) {
        self.mode = mode
    }

    /// Prints a message (above the live line on a terminal).
    func message(_ line: String) {
        guard mode != .off else { return }
        state.withLock { state in
            var out = state.drawn ? "\r\u{1B}[2K" : ""
            state.drawn = false
            out += line + "\n"
            FileHandle.standardOutput.write(Data(out.utf8))
        }
    }

    /// Shows the latest progress.
    func update(_ progress: BatchApplier.Progress) {
        let line = Self.describe(progress)
        state.withLock { state in
            switch mode {
            case .off: return
            case .terminal:
                let now = clock.now
                if let last = state.last, last.duration(to: now) < .milliseconds(200), progress.settled < progress.total { return }
                state.last = now
                state.drawn = true
                FileHandle.standardOutput.write(Data(("\r\u{1B}[2K" + line).utf8))
            case .lines(let every):
                let now = clock.now
                if let last = state.last, last.duration(to: now) < every { return }
                if state.last == nil {
                    state.last = now
                    return
                }
                state.last = now
                FileHandle.standardOutput.write(Data(("progress " + line + "\n").utf8))
            }
        }
    }

    /// Erases the live line.
    func finish() {
        state.withLock { state in
            if state.drawn { FileHandle.standardOutput.write(Data("\r\u{1B}[2K".utf8)) }
            state.drawn = false
        }
    }

    static func describe(_ progress: BatchApplier.Progress) -> String {
        let seconds = Double(progress.elapsed.components.seconds) + Double(progress.elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(progress.settled) / seconds : 0
        let percent = progress.total > 0 ? Double(progress.settled) * 100 / Double(progress.total) : 100
        let remaining = rate > 0 ? Double(progress.total - progress.settled) / rate : 0
        return String(
            format: "%d/%d edits (%.0f%%)  %.0f edits/s  ETA %@  applied %d  rejected %d  failed %d  retries %d", progress.settled, progress.total, percent,
            rate, Self.eta(remaining), progress.applied, progress.rejected, progress.failed, progress.retries)
    }

    static func eta(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        return whole >= 3600 ? "\(whole / 3600)h\(String(format: "%02d", whole % 3600 / 60))m" : whole >= 60 ? "\(whole / 60)m\(String(format: "%02d", whole % 60))s" : "\(whole)s"
    }
}
