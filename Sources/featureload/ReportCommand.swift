import ArgumentParser
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

/// `featureload report`: renders a saved run again, in any format.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Render a saved run (report.json, schema version 1 or 2) as Markdown, JUnit XML, HTML or JSON.",
        discussion: """
            Everything is rendered from the saved file alone, so a report from another machine or an earlier release \
            renders the same way; rendering the same file twice gives the same bytes. JSON output is the run in the \
            current schema (version 2), which is how a version-1 file is upgraded.

            Exit codes: 0 rendered; 2 the file is missing or not a featureload run report.
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
        let report: RunReport
        do {
            report = try RunReport.decode(try Data(contentsOf: URL(fileURLWithPath: file)))
        } catch {
            let reason = FileManager.default.fileExists(atPath: file) ? "\(error)" : "no such file"
            printError("featureload report: \(file): \(reason). Fix: give the report.json of a run")
            throw ExitStatus.invalidInput.code
        }
        let data = try format.render(report)
        if let output {
            try data.write(to: URL(fileURLWithPath: output))
        } else {
            FileHandle.standardOutput.write(data)
        }
    }
}
