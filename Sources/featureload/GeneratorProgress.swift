import FeatureServiceClient
import Foundation
import LoadRunner
import Synchronization

/// What one generator of `run --generators N` has done so far, as its parent reads it: each scenario's latest
/// progress (a running one's from the last progress event, a finished one's final figures) and which are finished.
///
/// A child keeps it in a ``GeneratorProgressFile`` (the hidden `--progress-file`); the parent reads every child's
/// file once a second and shows their ``sum(_:order:)`` as one progress line, as a single run shows its own.
struct GeneratorProgress: Codable, Sendable, Equatable {
    var scenarios: [String: ScenarioProgress] = [:]
    var finished: Set<String> = []

    /// Folds `event` in; returns whether anything changed.
    mutating func record(_ event: RunEvent) -> Bool {
        switch event {
        case .progress(let running):
            // A progress event taken before a scenario ended may arrive after its final figures: keep those.
            for progress in running where !finished.contains(progress.scenario) { scenarios[progress.scenario] = progress }
            return !running.isEmpty
        case .scenarioFinished(let spec, let view):
            let planned = scenarios[spec.name]
            scenarios[spec.name] = ScenarioProgress(
                scenario: spec.name, elapsed: view.record.durationSeconds, plannedSeconds: planned?.plannedSeconds,
                plannedIterations: planned?.plannedIterations, iterations: view.iterations, requests: view.requests,
                failedRequests: view.failedRequests, edits: view.editsApplied, editsFailed: view.editsFailed, inFlight: 0,
                p95Milliseconds: view.latency.p95)
            finished.insert(spec.name)
            return true
        case .metadataLoaded, .scenarioStarted:
            return false
        }
    }

    /// The generators' figures summed per scenario, in `order` (the plan's): counts and planned iterations added up,
    /// elapsed and planned seconds the longest, p95 the highest of the generators' (percentiles do not add).
    /// - Returns: The scenarios some generator still runs, and those every generator has finished.
    static func sum(_ generators: [GeneratorProgress], order: [String]) -> (running: [ScenarioProgress], finished: [ScenarioProgress]) {
        var running: [ScenarioProgress] = []
        var finished: [ScenarioProgress] = []
        for name in order {
            let shares = generators.compactMap { $0.scenarios[name] }
            guard var total = shares.first else { continue }
            for share in shares.dropFirst() {
                total.elapsed = max(total.elapsed, share.elapsed)
                total.plannedSeconds = [total.plannedSeconds, share.plannedSeconds].compactMap { $0 }.max()
                total.plannedIterations = total.plannedIterations.flatMap { sum in share.plannedIterations.map { sum + $0 } }
                total.iterations += share.iterations
                total.requests += share.requests
                total.failedRequests += share.failedRequests
                total.edits += share.edits
                total.editsFailed += share.editsFailed
                total.inFlight += share.inFlight
                total.p95Milliseconds = max(total.p95Milliseconds, share.p95Milliseconds)
            }
            let done = generators.allSatisfy { $0.finished.contains(name) }
            if done { finished.append(total) } else { running.append(total) }
        }
        return (running, finished)
    }
}

/// A generator's ``GeneratorProgress``, rewritten whole (``OutputFile``: beside, then renamed) at every change, so
/// that its parent never reads half a file.
final class GeneratorProgressFile: Sendable {
    let file: OutputFile
    private let progress = Mutex(GeneratorProgress())

    init(path: String) {
        file = OutputFile(path, option: "--progress-file")
    }

    /// Folds `event` in and rewrites the file when it changed; a file that cannot be written costs the parent its
    /// view, never the run.
    func record(_ event: RunEvent) {
        progress.withLock { progress in
            guard progress.record(event), let data = try? JSONEncoder().encode(progress) else { return }
            try? file.write(data)
        }
    }

    /// The progress in the file at `path`, or nil when there is none yet.
    static func read(_ path: String) -> GeneratorProgress? {
        FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(GeneratorProgress.self, from: $0) }
    }
}

/// The parent's side: once a second, the generators' progress files summed into the progress display — one live
/// line per running scenario, and a line when every generator has finished a scenario, as a single run shows them.
final class GeneratorProgressWatch: Sendable {
    let paths: [String]
    let order: [String]
    let display: ProgressDisplay
    private let announced = Mutex(Set<String>())

    init(paths: [String], order: [String], display: ProgressDisplay) {
        self.paths = paths
        self.order = order
        self.display = display
    }

    /// Reads every generator's file and shows the sum; a generator with no file yet counts as not finished.
    func poll() {
        let generators = paths.map { GeneratorProgressFile.read($0) ?? GeneratorProgress() }
        let (running, finished) = GeneratorProgress.sum(generators, order: order)
        let newly = announced.withLock { announced in finished.filter { announced.insert($0.scenario).inserted } }
        for total in newly {
            display.message(
                "  \(total.scenario) done on \(paths.count) generators in \(String(format: "%.2f", total.elapsed)) s: "
                    + "\(total.requests) requests (\(total.failedRequests) failed), \(total.edits) edits ok, \(total.editsFailed) edits failed")
        }
        if !running.isEmpty { display.update(running) }
    }

    /// Polls every second until the task is cancelled.
    func follow() async {
        while (try? await Task.sleep(for: .seconds(1))) != nil { poll() }
    }
}
