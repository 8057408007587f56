import ArgumentParser
import Foundation
import LoadRunner

/// k6's command-line habits for a scenario file, shared by `run` and `validate`: `-e NAME=VALUE` for its `${NAME}`
/// variables, and `--vus`, `--duration`, `--iterations` and `--scenario` to run it otherwise than written.
struct ScenarioFileOptions: ParsableArguments {
    @Option(
        name: [.customShort("e"), .customLong("env")], parsing: .singleValue,
        help: ArgumentHelp(
            "A value for ${NAME} in the scenario file, repeatable; wins over the environment. Export secrets instead: a command line shows in process listings.",
            valueName: "NAME=VALUE"))
    var variables: [String] = []

    @Option(
        help: ArgumentHelp(
            "Run N VUs in every scenario whose executor has `vus` (shared-iterations, per-vu-iterations, constant-vus); an error for any other scenario run.",
            valueName: "n"))
    var vus: Int?

    @Option(
        help: ArgumentHelp(
            "Run every scenario whose executor has `duration` (constant-vus, constant-arrival-rate) this long, e.g. 30s; an error for any other scenario run.",
            valueName: "duration"))
    var duration: String?

    @Option(
        help: ArgumentHelp(
            "Run N iterations in every scenario whose executor has `iterations` (shared-iterations, per-vu-iterations: per VU); an error for any other scenario run.",
            valueName: "n"))
    var iterations: Int?

    @Option(
        name: .customLong("scenario"), parsing: .singleValue,
        help: ArgumentHelp("Run only this scenario of the file, repeatable; the overrides apply to these only.", valueName: "name"))
    var scenarios: [String] = []

    func validate() throws {
        _ = try commandLineVariables()
        if let vus, !(1...10_000).contains(vus) { throw ValidationError("--vus must be 1…10000, got \(vus)") }
        if let iterations, !(1...100_000_000).contains(iterations) { throw ValidationError("--iterations must be 1…100000000, got \(iterations)") }
        if let duration { _ = try DurationOption.parse(duration, option: "--duration", examples: "30s, 2m or 1m30s") }
    }

    /// `-e NAME=VALUE` as a dictionary.
    /// - Throws: `ValidationError` for an entry without `=` or with a name that `${NAME}` cannot write.
    func commandLineVariables() throws -> [String: String] {
        var result: [String: String] = [:]
        for entry in variables {
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, Self.isVariableName(parts[0]) else {
                throw ValidationError("-e '\(Self.nameOnly(entry))': write NAME=VALUE, NAME being letters, digits and _ (not starting with a digit)")
            }
            result[parts[0]] = parts[1]
        }
        return result
    }

    /// The part of an `-e` entry before `=`: a message never shows a value, which may be secret.
    private static func nameOnly(_ entry: String) -> String {
        entry.contains("=") ? String(entry.prefix { $0 != "=" }) + "=…" : entry
    }

    static func isVariableName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }

    /// The overrides given.
    var overrides: ScenarioOverrides {
        ScenarioOverrides(vus: vus, duration: duration.flatMap(DurationText.parse), iterations: iterations, scenarios: scenarios)
    }

    /// What the parser needs: the process environment, `-e`, the overrides, and the run's `tags`.
    func parseOptions(tags: [String: String] = [:]) -> ScenarioParseOptions {
        let variables = ScenarioVariables(environment: ProcessInfo.processInfo.environment, commandLine: (try? commandLineVariables()) ?? [:])
        return ScenarioParseOptions(variables: variables, overrides: overrides, tags: tags)
    }

    /// The options a generator process needs to run the file as this one does; `-e` values go to its environment
    /// instead (see ``commandLineVariables()``), so no value shows in its process listing.
    var childArguments: [String] {
        var arguments: [String] = []
        if let vus { arguments += ["--vus", String(vus)] }
        if let duration { arguments += ["--duration", duration] }
        if let iterations { arguments += ["--iterations", String(iterations)] }
        for name in scenarios { arguments += ["--scenario", name] }
        return arguments
    }
}

/// `run --tag key=value`: tags on every metric of the run, so runs of different branches or environments can be told
/// apart and compared. The plan holds them (``ScenarioPlan/tags``); report.json and JUnit show them.
struct RunTagOptions: ParsableArguments {
    @Option(
        name: .customLong("tag"), parsing: .singleValue,
        help: ArgumentHelp(
            "A tag on every metric of the run, repeatable (e.g. --tag branch=main --tag env=staging); shown in report.json and JUnit <properties>; a scenario's own tag of the same name wins.",
            valueName: "key=value"))
    var entries: [String] = []

    func validate() throws { _ = try tags() }

    /// The tags as a dictionary.
    /// - Throws: `ValidationError` for an entry without `key=`, a name featureload sets itself, or a name given twice.
    func tags() throws -> [String: String] {
        var result: [String: String] = [:]
        for entry in entries {
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[0].contains(where: { "{},:".contains($0) }) else {
                throw ValidationError("--tag '\(entry)': write key=value, the key without { } , or :")
            }
            if let problem = TagName.problem(parts[0]) { throw ValidationError("--tag \(parts[0]): \(problem)") }
            guard result[parts[0]] == nil else { throw ValidationError("--tag \(parts[0]) is given twice; keep one") }
            result[parts[0]] = parts[1]
        }
        return result
    }

    /// The options a generator process needs to tag its metrics alike.
    var childArguments: [String] { entries.flatMap { ["--tag", $0] } }
}
