import ArgumentParser
import FeatureServiceClient
import Foundation
import LoadRunner

/// `featureload compare`: gates a run against a baseline.
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare a run with a baseline run and fail on a regression beyond the tolerance and the noise.",
        discussion: """
            For every scenario (and each operation of a mix): requests/s, edits/s, p50, p95 and p99 of request \
            latency, and the failure rate. A change is a regression only when it is larger than --tolerance and \
            larger than the runs' own noise. Latency is judged on every request (the runs' histograms) by a \
            Mann–Whitney test with Cliff's δ. Throughput is judged on the per-second values by an exact \
            Mann–Whitney test; where the runs have too few full seconds for any outcome to reach 1 %, a scenario \
            with a fixed number of VUs is judged on its iterations' durations (its throughput is VUs over iteration \
            time), and any other by the tolerance alone (the output says so). The failure rate uses a \
            two-proportion test. Two runs of the same build therefore do not flag each other, and a \
            clear regression is flagged at any run length.

            -o FILE writes into what FILE names (a device or a FIFO is written, not replaced; - is standard output), \
            and never over BASE.json or NEW.json.

            Exit codes: 0 no regression; 1 a regression; 2 a file is missing, not a featureload run report, the \
            runs do not have the same scenarios, or -o cannot be written or names a report compared; 64 usage error.
            """
    )

    @Argument(help: ArgumentHelp("The baseline run's report.json.", valueName: "BASE.json"))
    var baseline: String

    @Argument(help: ArgumentHelp("The run to judge (report.json).", valueName: "NEW.json"))
    var candidate: String

    @Option(help: ArgumentHelp("The smallest change that counts, e.g. 10% (default) or 0.05.", valueName: "percent"), transform: Self.tolerance)
    var tolerance: Double = 0.10

    @Option(
        name: .customLong("metric"),
        help: ArgumentHelp("Compare only this metric (repeatable): \(RunComparison.metrics.joined(separator: ", ")).", valueName: "metric"),
        transform: Self.metric)
    var metrics: [String] = []

    @Option(help: ArgumentHelp("Output format: md, junit, json or html.", valueName: "format"), transform: ReportFormat.argument)
    var format: ReportFormat = .md

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    static func tolerance(_ text: String) throws -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let isPercent = trimmed.hasSuffix("%")
        guard let number = Double(isPercent ? String(trimmed.dropLast()) : trimmed), number >= 0, number.isFinite else {
            throw ValidationError("'\(text)' is not a tolerance; write a percentage such as 10% or a fraction such as 0.1")
        }
        return isPercent ? number / 100 : number
    }

    static func metric(_ text: String) throws -> String {
        guard RunComparison.metrics.contains(text) else {
            throw ValidationError("'\(text)' is not a compared metric; use one of: \(RunComparison.metrics.joined(separator: ", "))")
        }
        return text
    }

    func run() throws {
        let output = self.output.map { OutputFile($0, option: "-o") }
        do {
            try OutputPaths.check(
                output.map { [$0] } ?? [], against: [("the baseline", baseline), ("the run to judge", candidate)], command: "compare")
        } catch {
            printError("featureload compare: \(UserMessage.describe(error))")
            throw ExitStatus.invalidInput.code
        }
        func load(_ path: String) throws -> RunReport {
            do {
                return try RunReport.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                let reason = FileManager.default.fileExists(atPath: path) ? UserMessage.describe(error, naming: path) : "no such file"
                printError("featureload compare: \(path): \(reason). Fix: give the report.json of a run")
                throw ExitStatus.invalidInput.code
            }
        }
        let base = try load(baseline)
        let new = try load(candidate)
        let comparison: RunComparison
        do {
            comparison = try RunComparison(
                baseline: base, candidate: new, baselineName: baseline, candidateName: candidate, tolerance: tolerance,
                metrics: metrics.isEmpty ? RunComparison.metrics : metrics)
        } catch {
            printError("featureload compare: \(UserMessage.describe(error)). Fix: compare two runs of the same scenario file")
            throw ExitStatus.invalidInput.code
        }
        let data: Data
        switch format {
        case .md: data = Data(comparison.markdown.utf8)
        case .junit: data = Data(comparison.junit.utf8)
        case .json: data = try comparison.json()
        case .html: data = Data(comparison.html.utf8)
        }
        try (output ?? OutputFile("-", option: "-o")).write(data, for: "compare")
        if comparison.regressed { throw ExitStatus.failed.code }
    }
}
