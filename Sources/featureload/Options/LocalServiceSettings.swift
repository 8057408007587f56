import Foundation
import LoadRunner
import LocalFeatureServer

/// The embedded service's set-up from a scenario file's `local:` block, checked before anything starts.
enum LocalServiceSettings {
    /// The plan's embedded-service configuration: dataset, data file, generated rows and faults.
    /// - Throws: ``ScenarioFileError`` naming the file, line, field and fix of every fault specification that does not
    ///   parse, and of fault settings that do not add up (rates over 1).
    static func configuration(
        _ local: ScenarioPlan.LocalService, dataset: String, dataPath: String?, file: String
    ) throws -> LocalFeatureServerConfiguration {
        var configuration = LocalFeatureServerConfiguration(databasePath: dataPath, dataset: dataset)
        configuration.generatedRows = local.rows
        var faults = LocalFeatureServerConfiguration.Faults()
        var issues: [ScenarioIssue] = []
        func problem(_ value: ScenarioPlan.Located, _ error: any Error, example: String) {
            issues.append(
                ScenarioIssue(
                    file: file, line: value.line, column: value.column, field: value.field, problem: "\(UserMessage.describe(error))",
                    fix: "write it as `featureload serve` takes it, e.g. \(example)"))
        }
        for value in local.faults {
            do {
                faults.rules.append(try FaultRule(specification: value.text))
            } catch {
                problem(value, error, example: "\"http503:0.1\", \"http429:0.05:retryAfter=1\" or \"dropAfterCommit:0.02@applyEdits\"")
            }
        }
        if let latency = local.latency {
            do {
                faults.latency = try FaultLatency(specification: latency.text)
            } catch {
                problem(latency, error, example: "\"fixed:20\" or \"lognormal:20,0.5@query\"")
            }
        }
        if let seed = local.faultSeed { faults.seed = seed }
        if issues.isEmpty {
            do {
                try faults.validate(source: "local.faults")
            } catch {
                let first = local.faults.first
                issues.append(
                    ScenarioIssue(
                        file: file, line: first?.line, column: first?.column, field: "local.faults", problem: "\(UserMessage.describe(error))",
                        fix: "lower the rates so that the request-level ones add up to at most 1"))
            }
        }
        if !issues.isEmpty { throw ScenarioFileError(file: file, issues: issues) }
        configuration.faults = faults
        return configuration
    }

    /// A note for the report when faults are injected.
    static func note(_ local: ScenarioPlan.LocalService) -> String? {
        let specifications = local.faults.map(\.text) + (local.latency.map { ["latency \($0.text)"] } ?? [])
        return specifications.isEmpty ? nil : "faults injected by the embedded service: " + specifications.joined(separator: ", ")
    }
}
