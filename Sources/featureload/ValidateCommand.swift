import ArgumentParser
import Foundation
import LoadRunner
import LocalFeatureServer

/// `featureload validate`: checks scenario files without running them.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check scenario files and list every problem, with file, line, field and fix.",
        discussion: "Exit code 0 when every file is valid, 2 otherwise. Nothing is sent anywhere."
    )

    @Argument(help: ArgumentHelp("Scenario files (YAML) to check.", valueName: "scenario.yaml"))
    var files: [String]

    func run() throws {
        var failed = false
        for file in files {
            do {
                let plan = try ScenarioFile.load(file)
                print("\(file): ok (\(plan.scenarios.count) scenarios: \(plan.scenarios.map(\.name).joined(separator: ", ")); target \(plan.target))")
                if case .local(let dataset) = plan.target, let problem = LocalDatasets.problem(dataset) {
                    failed = true
                    printError("\(file): local.dataset: \(problem)")
                }
            } catch {
                failed = true
                printError(String(describing: error))
            }
        }
        if failed { throw ExitCode(2) }
    }
}

/// Reading scenario files from disk for the subcommands.
enum ScenarioFile {
    /// Reads and validates a scenario file.
    /// - Throws: ``ScenarioFileError`` for a missing, unreadable or invalid file.
    static func load(_ path: String) throws -> ScenarioPlan {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ScenarioFileError(
                file: path,
                issues: [
                    ScenarioIssue(
                        file: path, line: nil, column: nil, field: "",
                        problem: FileManager.default.fileExists(atPath: path) ? "cannot be read as UTF-8 text" : "no such file",
                        fix: "give the path of a scenario YAML file, e.g. Scenarios/quickstart.yaml")
                ])
        }
        return try ScenarioParser.parse(yaml: text, file: path, environment: ProcessInfo.processInfo.environment)
    }
}

/// Writes a line to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Checks of `target: local` plans that need the dataset catalog.
enum LocalDatasets {
    /// Why `dataset` cannot be served, or nil when it can.
    static func problem(_ dataset: String) -> String? {
        do {
            _ = try DatasetCatalog.resolve(dataset, workingDirectory: FileManager.default.currentDirectoryPath)
            return nil
        } catch {
            return "\(error)"
        }
    }
}
