import ArgumentParser
import FeatureModel
import Foundation
import LoadRunner
import LocalFeatureServer

/// `featureload validate`: checks scenario files without running them.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check scenario files and list every problem, with file, line, field and fix.",
        discussion: """
            Reads each file as `run` would: ${NAME} values from the environment or -e NAME=VALUE (an unset variable \
            without a default is a problem, named with its line and column), and --vus, --duration, --iterations and \
            --scenario applied as `run` applies them. Exit code 0 when every file is valid, 2 otherwise. Nothing is \
            sent anywhere.
            """
    )

    @Argument(help: ArgumentHelp("Scenario files (YAML) to check.", valueName: "scenario.yaml"))
    var files: [String]

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Check as `run --target` would run them: `local` (against the embedded dataset), or a live …/FeatureServer URL.", valueName: "local|url"))
    var target: String?

    @OptionGroup var scenarioOptions: ScenarioFileOptions

    func validate() throws {
        if let target, target != "local", case .failure(let invalid) = FeatureServerURL.normalized(target) {
            throw ValidationError("--target: \(invalid.problem). Fix: \(invalid.fix)")
        }
    }

    func run() throws {
        var failed = false
        for file in files {
            do {
                var plan = try ScenarioFile.load(file, options: scenarioOptions.parseOptions())
                // The same override `run --target` applies: a live file checked as local uses the default dataset.
                if target == "local", case .url = plan.target { plan.target = .local(dataset: "parks") }
                if let target, target != "local", case .success(let url) = FeatureServerURL.normalized(target) { plan.target = .url(url) }
                if case .local(let dataset) = plan.target {
                    let problems = LocalDatasets.problems(plan, dataset: dataset, file: file)
                    if !problems.isEmpty {
                        failed = true
                        printError(
                            "\(file): \(problems.count) problem\(problems.count == 1 ? "" : "s")\n"
                                + problems.map { "  " + $0 }.joined(separator: "\n"))
                        continue
                    }
                }
                print("\(file): ok (\(plan.scenarios.count) scenarios: \(plan.scenarios.map(\.name).joined(separator: ", ")); target \(plan.target))")
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
    /// - Parameter options: Values for its variables (the process environment and `-e`), overrides and tags.
    static func load(_ path: String, options: ScenarioParseOptions) throws -> ScenarioPlan {
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
        return try ScenarioParser.parse(yaml: text, file: path, options: options)
    }
}

/// Writes a line to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Checks of `target: local` plans that need the dataset catalog.
enum LocalDatasets {
    /// Everything `run` would refuse about a `local` plan, found without starting anything: a dataset that cannot
    /// be served, faults that do not parse, and what the plan check finds against the dataset's own layers (a missing
    /// layer, a relationship or attachments the layer lacks).
    static func problems(_ plan: ScenarioPlan, dataset: String, file: String) -> [String] {
        let definition: ServiceDefinition
        do {
            definition = try DatasetCatalog.resolve(
                dataset, workingDirectory: FileManager.default.currentDirectoryPath, generatedRows: plan.local.rows)
        } catch {
            return ["\(file): local.dataset: \(UserMessage.describe(error))"]
        }
        var problems: [String] = []
        do {
            _ = try LocalServiceSettings.configuration(plan.local, dataset: dataset, dataPath: nil, file: file)
        } catch let error as ScenarioFileError {
            problems += error.issues.map(\.description)
        } catch {
            problems.append("\(file): local: \(UserMessage.describe(error))")
        }
        let layers = Dictionary(definition.layers.map { ($0.info.id, $0.info) }, uniquingKeysWith: { first, _ in first })
        // The rows the embedded service starts with: what a run's plan check would count.
        let counts = Dictionary(definition.layers.map { ($0.info.id, $0.seedRows.count) }, uniquingKeysWith: { first, _ in first })
        problems += PlanCheck.check(plan, layers: layers, featureCounts: counts).map { "\(file): \($0)" }
        return problems
    }
}
