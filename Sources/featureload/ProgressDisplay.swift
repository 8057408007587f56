import ArgumentParser
import Foundation
import LoadRunner
import Synchronization

/// Shows a run's progress: on a terminal, one line per running scenario, redrawn in place every second; otherwise
/// (a CI log, a pipe) plain lines every `interval`; nothing when quiet. Other messages (a scenario started or
/// finished) print above the live lines. `apply` shows its one line through ``show(_:)``.
final class ProgressDisplay: Sendable {
    enum Mode: Sendable, Equatable {
        case terminal
        case lines(every: Duration)
        case off
    }

    struct State {
        /// Live lines on screen (terminal mode), to erase before anything else is printed.
        var drawn = 0
        var lastLines: ContinuousClock.Instant?
        /// When the live lines were last drawn (terminal mode).
        var lastDrawn: ContinuousClock.Instant?
        /// The previous sample per scenario: when, requests and edits, for the rates.
        var previous: [String: (elapsed: Double, requests: Int, edits: Int)] = [:]
    }

    let mode: Mode
    private let state = Mutex(State())
    private let clock = ContinuousClock()

    init(mode: Mode) {
        self.mode = mode
    }

    /// `--progress-interval`'s value: a duration above 0.
    static func interval(_ text: String) throws -> Duration {
        try DurationOption.parse(text, option: "--progress-interval", examples: "10s or 1m")
    }

    /// Terminal mode when standard output is a terminal (and `TERM` is not `dumb`), else lines every `interval`.
    static func automatic(quiet: Bool, interval: Duration, environment: [String: String] = ProcessInfo.processInfo.environment) -> Mode {
        if quiet { return .off }
        let terminal = isatty(STDOUT_FILENO) != 0 && environment["TERM"].map { $0 != "dumb" && !$0.isEmpty } ?? false
        return terminal ? .terminal : .lines(every: interval)
    }

    /// Prints a message (above the live lines on a terminal).
    func message(_ line: String) {
        guard mode != .off else { return }
        state.withLock { state in
            var out = erase(&state)
            out += line + "\n"
            write(out)
        }
    }

    /// Shows the latest progress.
    func update(_ scenarios: [ScenarioProgress]) {
        guard mode != .off else { return }
        state.withLock { state in
            let lines = scenarios.map { describe($0, previous: state.previous[$0.scenario]) }
            for progress in scenarios {
                state.previous[progress.scenario] = (progress.elapsed, progress.requests, progress.edits)
            }
            draw(lines, &state)
        }
    }

    /// Shows `lines` as the live progress (an apply's one line, after each batch).
    func show(_ lines: [String]) {
        show { lines }
    }

    /// Shows the lines `make` gives as the live progress, made only when they are drawn: an apply reports after each
    /// batch, and formatting its line every time (`String(format:)`, through Foundation) was a few percent of its
    /// sending loop's CPU at batch 100, quiet or not.
    func show(_ make: () -> [String]) {
        guard mode != .off else { return }
        state.withLock { state in draw(make, &state) }
    }

    /// On a terminal, redraws the live lines (at most five times a second); otherwise prints them every interval.
    private func draw(_ lines: [String], _ state: inout State) {
        draw({ lines }, &state)
    }

    private func draw(_ make: () -> [String], _ state: inout State) {
        let now = clock.now
        switch mode {
        case .terminal:
            if let last = state.lastDrawn, last.duration(to: now) < .milliseconds(200) { return }
            state.lastDrawn = now
            let lines = make()
            var out = erase(&state)
            for line in lines { out += "\u{1B}[2K" + line + "\n" }
            state.drawn = lines.count
            write(out)
        case .lines(let every):
            if let last = state.lastLines, last.duration(to: now) < every { return }
            state.lastLines = now
            write(make().map { "progress " + $0 + "\n" }.joined())
        case .off:
            break
        }
    }

    /// Removes the live lines (before the summary).
    func finish() {
        guard mode == .terminal else { return }
        state.withLock { state in write(erase(&state)) }
    }

    private func erase(_ state: inout State) -> String {
        defer { state.drawn = 0 }
        return String(repeating: "\u{1B}[1A\u{1B}[2K", count: state.drawn)
    }

    private func write(_ text: String) {
        guard !text.isEmpty else { return }
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// `single-edits  4.0/10 s  iterations 2,113  1,046 req/s  1,046 edits/s  p95 2.31 ms  failed 0  in flight 8`
    func describe(_ progress: ScenarioProgress, previous: (elapsed: Double, requests: Int, edits: Int)?) -> String {
        let span = previous.map { progress.elapsed - $0.elapsed } ?? progress.elapsed
        let requestRate = span > 0 ? Double(progress.requests - (previous?.requests ?? 0)) / span : 0
        let editRate = span > 0 ? Double(progress.edits - (previous?.edits ?? 0)) / span : 0
        var parts = [progress.scenario]
        if let planned = progress.plannedSeconds {
            parts.append(String(format: "%.0f/%.0f s", progress.elapsed, planned))
        } else {
            parts.append(String(format: "%.0f s", progress.elapsed))
        }
        if let planned = progress.plannedIterations {
            parts.append("iterations \(Self.grouped(progress.iterations))/\(Self.grouped(planned))")
        } else {
            parts.append("iterations \(Self.grouped(progress.iterations))")
        }
        parts.append("\(Self.grouped(Int(requestRate.rounded()))) req/s")
        if progress.edits > 0 || progress.editsFailed > 0 { parts.append("\(Self.grouped(Int(editRate.rounded()))) edits/s") }
        parts.append(String(format: "p95 %.2f ms", progress.p95Milliseconds))
        // The same words, for the same counts, as the summary: requests failed, and edits failed.
        parts.append("requests failed \(Self.grouped(progress.failedRequests))")
        if progress.edits > 0 || progress.editsFailed > 0 { parts.append("edits failed \(Self.grouped(progress.editsFailed))") }
        parts.append("in flight \(progress.inFlight)")
        return parts.joined(separator: "  ")
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }
}
