import Foundation
import LoadRunner
import Logging
import Synchronization

/// `featureload run --generators N`: the test as N child processes on this machine, each one execution segment of
/// the sequence `0,1/N,…,1`, against one service (the embedded one started here, or the live target), started
/// together and merged at the end into one report and one verdict — what the Kubernetes Indexed Job does across pods.
/// While they run, one progress line per scenario sums their figures (``GeneratorProgressWatch``).
extension RunCommand {
    /// One generator process: its output folder and its log.
    struct Generator {
        var process: Process
        var out: String
        var log: String
    }

    /// Runs the generators and returns their merged report.
    func runGenerators(
        _ count: Int, scenarios: [String], settings: TargetSettings, serverLogger: Logger, display: ProgressDisplay,
        rawOutput: RawSampleWriter?
    ) async throws -> RunReport {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-generators-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let sequence = (0...count).map { $0 == 0 ? "0" : $0 == count ? "1" : "\($0)/\(count)" }.joined(separator: ",")
        let scenarioFile = self.scenarioFile
        let destinations = rawOutputs
        // Each generator writes its requests to plain files of its own, joined into the ones asked for at the end.
        @Sendable func parts(_ index: Int) -> [RawSampleDestination] {
            destinations.enumerated().map { number, destination in
                RawSampleDestination(format: destination.format, path: "\(work)/generator-\(index)-samples-\(number).\(destination.format.rawValue)")
            }
        }
        let arguments = (local: childTargetArguments(local: true), live: childTargetArguments(local: false))
        // The file's overrides and tags as given here; -e values reach the children through their environment.
        let shape = scenarioOptions.childArguments + tagOptions.childArguments
        let variables = (try? scenarioOptions.commandLineVariables()) ?? [:]
        // Each generator keeps its progress in a file, which this process sums into one progress line.
        let progressFiles = display.mode == .off ? nil : (0..<count).map { "\(work)/generator-\($0)-progress.json" }
        let watch = progressFiles.map { GeneratorProgressWatch(paths: $0, order: scenarios, display: display) }
        return try await withTarget(settings, serverLogger: serverLogger) { connected in
            // Started together, a moment from now, so that every child has loaded the service's metadata first.
            let startAt = Date().addingTimeInterval(2 + 0.25 * Double(count)).formatted(.iso8601)
            display.message("running \(count) generators (segments of \(sequence)) against \(connected.serviceURL), starting at \(startAt) …")
            let children = try (0..<count).map { index in
                try Self.generator(
                    index, of: count,
                    running: ["run", scenarioFile, "--target", connected.serviceURL] + shape + parts(index).flatMap { ["--out", $0.description] }
                        + (progressFiles.map { ["--progress-file", $0[index]] } ?? []),
                    sequence: sequence, startAt: startAt, targetArguments: connected.isLocal ? arguments.local : arguments.live,
                    variables: variables, work: work)
            }
            let statuses = try await Self.run(children, display: display, watch: watch)
            var reports: [(path: String, report: RunReport)] = []
            for (index, child) in children.enumerated() {
                // Exit 1 is a generator's own gates failing on its share; the merged verdict is what counts.
                let folder = (try? FileManager.default.contentsOfDirectory(atPath: child.out))?.first
                guard statuses[index] == 0 || statuses[index] == 1 || statuses[index] == 130, let folder,
                    let data = FileManager.default.contents(atPath: "\(child.out)/\(folder)/report.json")
                else {
                    let output = (try? String(contentsOfFile: child.log, encoding: .utf8)) ?? ""
                    throw TargetError("generator \(index) exited \(statuses[index]) without a report:\n\(output)")
                }
                reports.append(("generator \(index)", try RunReport.decode(data)))
            }
            if let rawOutput {
                for index in children.indices {
                    for (number, part) in parts(index).enumerated() { try rawOutput.appendPart(part.path, toDestination: number) }
                }
            }
            var merged = try ReportMerge.merge(reports)
            merged.target = RunReport.TargetInfo(
                kind: connected.isLocal ? "local" : "live", serviceURL: connected.serviceURL, dataset: connected.dataset,
                notes: connected.notes + ["\(count) generator processes on this machine (run --generators \(count))"])
            merged.plan.file = scenarioFile
            return merged
        }
    }

    /// Generator `index` of `count`, set up to run (`command`) its segment of `sequence` from `startAt`, logging into
    /// `work`, with `variables` (`-e`) added to its environment.
    static func generator(
        _ index: Int, of count: Int, running command: [String], sequence: String, startAt: String, targetArguments: [String],
        variables: [String: String] = [:], work: String
    ) throws -> Generator {
        let out = "\(work)/generator-\(index)"
        let log = "\(work)/generator-\(index).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments =
            command + [
                "--execution-segment", "\(index == 0 ? "0" : "\(index)/\(count)"):\(index + 1 == count ? "1" : "\(index + 1)/\(count)")",
                "--execution-segment-sequence", sequence, "--start-at", startAt, "--out", out, "--quiet", "--formats", "md",
            ] + targetArguments
        if !variables.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(variables) { _, given in given } }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        return Generator(process: process, out: out, log: log)
    }

    /// This executable, which the generators run.
    static var binary: String { Bundle.main.executablePath ?? CommandLine.arguments[0] }

    /// Starts `children` and returns their exit statuses, in order, once every one has exited; meanwhile `watch`
    /// shows their summed progress every second, and once more at the end, with the figures they finished with.
    static func run(_ children: [Generator], display: ProgressDisplay, watch: GeneratorProgressWatch?) async throws -> [Int32] {
        // Each child's exit, as it happens: waiting with waitUntilExit would block threads the embedded
        // service needs to answer the children.
        let (exits, exited) = AsyncStream.makeStream(of: (Int, Int32).self)
        let remaining = Mutex(children.count)
        for (index, child) in children.enumerated() {
            child.process.terminationHandler = { process in
                exited.yield((index, process.terminationStatus))
                if remaining.withLock({
                    $0 -= 1
                    return $0
                }) == 0 {
                    exited.finish()
                }
            }
            do {
                try child.process.run()
            } catch {
                for started in children[..<index] { started.process.interrupt() }
                throw TargetError("cannot start generator \(index) (\(Self.binary)): \(UserMessage.describe(error))")
            }
        }
        // Waits for every child, in a task cancellation does not reach: after Ctrl-C (which interrupts them)
        // they still finish their reports, which are merged.
        let processes = children.map(\.process)
        let count = children.count
        return await withTaskCancellationHandler {
            await Task {
                await withTaskGroup(of: [Int32]?.self) { group in
                    if let watch {
                        group.addTask {
                            await watch.follow()
                            return nil
                        }
                    }
                    group.addTask {
                        var statuses = Array(repeating: Int32(0), count: count)
                        for await (index, status) in exits {
                            statuses[index] = status
                            display.message("  generator \(index) finished (exit \(status))")
                        }
                        return statuses
                    }
                    var statuses: [Int32] = []
                    while let result = await group.next() {
                        guard let result else { continue }
                        statuses = result
                        group.cancelAll()
                    }
                    // Every generator wrote its final figures before it exited.
                    watch?.poll()
                    return statuses
                }
            }.value
        } onCancel: {
            for process in processes where process.isRunning { process.interrupt() }
        }
    }

    /// The options a child needs to reach the service as this process does: for a live target its authentication
    /// and TLS settings (names of environment variables, never values); for the embedded one, nothing.
    func childTargetArguments(local: Bool) -> [String] {
        var arguments: [String] = []
        if let timeout = targetOptions.requestTimeout { arguments += ["--request-timeout", timeout] }
        if let size = targetOptions.maxResponseSize { arguments += ["--max-response-size", size] }
        guard !local else { return arguments }
        if let name = targetOptions.tokenEnv { arguments += ["--token-env", name] }
        if let name = targetOptions.usernameEnv { arguments += ["--username-env", name] }
        if let name = targetOptions.passwordEnv { arguments += ["--password-env", name] }
        if let url = targetOptions.tokenURL { arguments += ["--token-url", url] }
        if let file = targetOptions.caFile { arguments += ["--ca-file", file] }
        if targetOptions.insecure { arguments.append("--insecure") }
        return arguments
    }
}
