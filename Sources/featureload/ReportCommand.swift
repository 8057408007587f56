import ArgumentParser
import FeatureServiceClient
import Foundation
import LoadRunner

extension ReportFormat {
    /// Parses a `--format` value, naming the choices when it is not one.
    static func argument(_ text: String) throws -> ReportFormat {
        guard let format = ReportFormat(rawValue: text.lowercased()) else {
            throw ValidationError("'\(text)' is not a report format; use one of: \(allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return format
    }
}

/// `featureload report`: renders a saved run again (`report FILE`), or merges generators' runs (`report merge`).
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Render a saved run, or merge the runs of several generators into one.",
        subcommands: [RenderReportCommand.self, MergeReportCommand.self],
        defaultSubcommand: RenderReportCommand.self
    )
}

/// `featureload report [render] FILE`: renders a saved run again, in any format.
struct RenderReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a saved run (report.json, schema version 1 or 2) as Markdown, JUnit XML, HTML or JSON.",
        discussion: """
            Everything is rendered from the saved file alone, so a report from another machine or an earlier release \
            renders the same way; rendering the same file twice gives the same bytes. JSON output is the run in the \
            current schema (version 2), which is how a version-1 file is upgraded.

            -o FILE writes into what FILE names (a device or a FIFO is written, not replaced; - is standard output), \
            never over the report it renders.

            Exit codes: 0 rendered; 2 the file is missing or not a featureload run report, or -o cannot be written or \
            names it.
            """
    )

    @Argument(help: ArgumentHelp("A saved run: the report.json a run wrote.", valueName: "report.json"))
    var file: String

    @Option(
        name: .long, help: ArgumentHelp("Output format: \(ReportFormat.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "format"),
        transform: ReportFormat.argument)
    var format: ReportFormat = .md

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    func run() throws {
        let output = self.output.map { OutputFile($0, option: "-o") }
        do {
            try OutputPaths.check(output.map { [$0] } ?? [], against: [("the report rendered", file)], command: "report")
        } catch {
            printError("featureload report: \(UserMessage.describe(error))")
            throw ExitStatus.invalidInput.code
        }
        let report: RunReport
        do {
            report = try RunReport.decode(try Data(contentsOf: URL(fileURLWithPath: file)))
        } catch {
            let reason = FileManager.default.fileExists(atPath: file) ? UserMessage.describe(error, naming: file) : "no such file"
            printError("featureload report: \(file): \(reason). Fix: give the report.json of a run")
            throw ExitStatus.invalidInput.code
        }
        try (output ?? OutputFile("-", option: "-o")).write(format.render(report), for: "report")
    }
}

/// `featureload report merge A.json B.json … -o merged.json`: one report, and one verdict, from the runs of the
/// generators that ran a test's execution segments.
struct MergeReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the reports of generators that ran one test's execution segments into one report and one verdict.",
        discussion: """
            Counters are summed and latency histograms merged exactly (HDR buckets, no rounding), time series are \
            aligned by wall clock, and thresholds, gates and verification are judged once on the merged figures. \
            The merged report names its generators and flags one that dropped iterations or started more than 1 s \
            after the first. Reports of different scenario files or seeds, of schema version 1, or of overlapping \
            segments are refused; segments that leave part of the test out fail the verdict.

            -o FILE writes into what FILE names (a device or a FIFO is written, not replaced; - is standard output), \
            never over a report it merges.

            Exit codes: 0 merged, and the merged run passed; 1 merged, and it failed; 2 the reports cannot be merged, \
            or -o cannot be written or names one of them.

            Example:
              featureload report merge g0/*/report.json g1/*/report.json g2/*/report.json g3/*/report.json -o merged.json
            """
    )

    @Argument(help: ArgumentHelp("The generators' report.json files.", valueName: "report.json"))
    var files: [String]

    @Option(
        name: .long,
        help: ArgumentHelp("Output format: \(ReportFormat.allCases.map(\.rawValue).joined(separator: ", ")) (default json).", valueName: "format"),
        transform: ReportFormat.argument)
    var format: ReportFormat = .json

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give the report.json of every generator") }
    }

    func run() throws {
        let output = self.output.map { OutputFile($0, option: "-o") }
        do {
            try OutputPaths.check(output.map { [$0] } ?? [], against: files.map { ("a report merged", $0) }, command: "report merge")
        } catch {
            printError("featureload report merge: \(UserMessage.describe(error))")
            throw ExitStatus.invalidInput.code
        }
        var reports: [(path: String, report: RunReport)] = []
        for file in files {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: file))
                if let object = try JSONSerialization.jsonObject(with: data) as? [String: Any], (object["schemaVersion"] as? Int ?? 1) == 1 {
                    throw LoadRunnerError(
                        "it is a schema version 1 report, which holds no execution segment; merge the reports of this featureload's runs")
                }
                reports.append((file, try RunReport.decode(data)))
            } catch {
                let reason = FileManager.default.fileExists(atPath: file) ? UserMessage.describe(error, naming: file) : "no such file"
                printError("featureload report merge: \(file): \(reason)")
                throw ExitStatus.invalidInput.code
            }
        }
        let merged: RunReport
        do {
            merged = try ReportMerge.merge(reports)
        } catch {
            printError("featureload report merge: \(UserMessage.describe(error))")
            throw ExitStatus.invalidInput.code
        }
        let destination = output ?? OutputFile("-", option: "-o")
        try destination.write(format.render(merged), for: "report merge")
        if !destination.isStandardOutput {
            printError(
                merged.verdict.passed ? "merged: PASS" : "merged: FAIL\n" + merged.verdict.failures.map { "  - \($0)" }.joined(separator: "\n"))
        }
        if !merged.verdict.passed { throw ExitStatus.failed.code }
    }
}
