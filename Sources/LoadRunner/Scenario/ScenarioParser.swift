import Yams

/// Reads a scenario file's YAML into a ``ScenarioPlan``, collecting every problem at once.
///
/// Pure: no I/O beyond the text handed in. Each problem names the file, line, column, field and the fix.
///
/// ```swift
/// let plan = try ScenarioParser.parse(yaml: text, file: "Scenarios/quickstart.yaml")
/// ```
public enum ScenarioParser {
    /// Parses and validates a scenario file.
    /// - Parameters:
    ///   - yaml: The file's text.
    ///   - file: The path to name in messages.
    /// - Returns: The validated plan.
    /// - Throws: ``ScenarioFileError`` listing every problem found.
    public static func parse(yaml: String, file: String) throws(ScenarioFileError) -> ScenarioPlan {
        var reader = NodeReader(file: file)
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: yaml) else {
                throw ScenarioFileError(
                    file: file,
                    issues: [
                        ScenarioIssue(
                            file: file, line: nil, column: nil, field: "", problem: "the file is empty",
                            fix: "start from Scenarios/quickstart.yaml")
                    ])
            }
            root = node
        } catch let error as ScenarioFileError {
            throw error
        } catch {
            throw ScenarioFileError(file: file, issues: [syntaxIssue(error, file: file)])
        }
        let plan = readPlan(root, &reader)
        if let plan, reader.issues.isEmpty { return plan }
        let ordered = reader.issues.sorted { ($0.line ?? 0, $0.column ?? 0) < ($1.line ?? 0, $1.column ?? 0) }
        throw ScenarioFileError(file: file, issues: ordered)
    }

    static let topLevelKeys = ["version", "name", "description", "target", "local", "seed", "verify", "maxFailedEditRate", "scenarios", "compare"]
    static let scenarioKeys = [
        "executor", "vus", "iterations", "maxDuration", "operation", "layer", "batchSize", "rollbackOnFailure", "retry",
        "clientGlobalIds",
    ]
    static let retryKeys = ["maxAttempts", "initialBackoff", "maxBackoff", "budget"]
    static let compareKeys = ["baseline", "candidate", "metric", "min"]

    private static func readPlan(_ root: Node, _ reader: inout NodeReader) -> ScenarioPlan? {
        guard let top = reader.mapping(root, field: "", allowed: topLevelKeys) else { return nil }
        let version = reader.int(top["version"], field: "version", range: 1...1, example: "version: 1") ?? 1
        let name = reader.string(top["name"], field: "name", required: true, parent: root, example: "name: quickstart")
        let description = reader.string(top["description"], field: "description", required: false, parent: root, example: "")
        let seed = reader.int(top["seed"], field: "seed", range: 0...Int.max, example: "seed: 42") ?? 1
        let verify = reader.bool(top["verify"], field: "verify") ?? true
        let maxFailedEditRate = reader.rate(top["maxFailedEditRate"], field: "maxFailedEditRate") ?? 0
        let target = readTarget(top, root: root, &reader)

        var scenarios: [ScenarioSpec] = []
        var declared: Set<String> = []
        if let scenariosNode = top["scenarios"] {
            if let entries = reader.namedMapping(scenariosNode, field: "scenarios") {
                if entries.isEmpty {
                    reader.issue(
                        scenariosNode, field: "scenarios", problem: "no scenarios are defined",
                        fix: "add at least one, e.g. `scenarios: { single: { executor: shared-iterations, vus: 8, iterations: 100 } }`")
                }
                for (name, node) in entries {
                    declared.insert(name)
                    if let spec = readScenario(name: name, node, &reader) { scenarios.append(spec) }
                }
            }
        } else {
            reader.issue(
                root, field: "scenarios", problem: "missing",
                fix: "add a `scenarios:` mapping of name → { executor, vus, iterations, batchSize }")
        }

        var comparisons: [ScenarioPlan.Comparison] = []
        if let compareNode = top["compare"] {
            let known = declared
            for (index, item) in reader.sequence(compareNode, field: "compare").enumerated() {
                if let comparison = readComparison(item, field: "compare[\(index)]", known: known, &reader) {
                    comparisons.append(comparison)
                }
            }
        }
        guard let name, let target else { return nil }
        return ScenarioPlan(
            version: version, name: name, description: description, target: target, seed: UInt64(seed),
            scenarios: scenarios, comparisons: comparisons, verify: verify,
            maxFailedEditRate: maxFailedEditRate)
    }

    private static func readTarget(_ top: Node.Mapping, root: Node, _ reader: inout NodeReader) -> ScenarioPlan.Target? {
        var dataset = "parks"
        if let localNode = top["local"], let local = reader.mapping(localNode, field: "local", allowed: ["dataset"]) {
            dataset = reader.string(local["dataset"], field: "local.dataset", required: false, parent: localNode, example: "dataset: parks") ?? dataset
        }
        guard
            let text = reader.string(
                top["target"], field: "target", required: true, parent: root,
                example: "target: local  (or the https://…/FeatureServer URL of a live service)")
        else { return nil }
        if text == "local" { return .local(dataset: dataset) }
        let lowered = text.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            reader.issue(
                top["target"], field: "target", problem: "'\(text)' is neither `local` nor an http(s) URL",
                fix: "write `target: local` for the embedded service, or the …/FeatureServer URL of a live service")
            return nil
        }
        var url = text
        while url.hasSuffix("/") { url.removeLast() }
        guard url.lowercased().hasSuffix("/featureserver") else {
            reader.issue(
                top["target"], field: "target", problem: "'\(text)' is not a feature service URL",
                fix: "give the service URL ending in /FeatureServer, e.g. https://host/arcgis/rest/services/Parks/FeatureServer")
            return nil
        }
        return .url(url)
    }

    private static func readScenario(name: String, _ node: Node, _ reader: inout NodeReader) -> ScenarioSpec? {
        let path = "scenarios.\(name)"
        guard let map = reader.mapping(node, field: path, allowed: scenarioKeys) else { return nil }
        let executors = ScenarioSpec.Executor.allCases.map(\.rawValue)
        var executor: ScenarioSpec.Executor?
        if let text = reader.string(
            map["executor"], field: "\(path).executor", required: true, parent: node,
            example: "executor: shared-iterations")
        {
            executor = ScenarioSpec.Executor(rawValue: text)
            if executor == nil {
                reader.issue(
                    map["executor"], field: "\(path).executor", problem: "unknown executor '\(text)'",
                    fix: "use one of: \(executors.joined(separator: ", "))")
            }
        }
        let vus = reader.int(map["vus"], field: "\(path).vus", range: 1...1024, example: "vus: 8") ?? 1
        let iterations = reader.int(
            map["iterations"], field: "\(path).iterations", range: 1...10_000_000, example: "iterations: 1000",
            required: true, parent: node)
        let maxDuration =
            reader.duration(map["maxDuration"], field: "\(path).maxDuration", example: "maxDuration: 60s") ?? .seconds(600)
        var operation = ScenarioSpec.Operation.addFeatures
        if let text = reader.string(map["operation"], field: "\(path).operation", required: false, parent: node, example: "") {
            if let known = ScenarioSpec.Operation(rawValue: text) {
                operation = known
            } else {
                reader.issue(
                    map["operation"], field: "\(path).operation", problem: "unknown operation '\(text)'",
                    fix: "use one of: \(ScenarioSpec.Operation.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        let layer = reader.int(map["layer"], field: "\(path).layer", range: 0...100_000, example: "layer: 0") ?? 0
        let batchSize = reader.int(map["batchSize"], field: "\(path).batchSize", range: 1...10_000, example: "batchSize: 100") ?? 1
        let rollback = reader.bool(map["rollbackOnFailure"], field: "\(path).rollbackOnFailure") ?? true
        let clientGlobalIds = reader.bool(map["clientGlobalIds"], field: "\(path).clientGlobalIds") ?? false
        var retry: ScenarioSpec.Retry?
        if let retryNode = map["retry"], let retryMap = reader.mapping(retryNode, field: "\(path).retry", allowed: retryKeys) {
            var settings = ScenarioSpec.Retry()
            let field = "\(path).retry"
            settings.maxAttempts =
                reader.int(retryMap["maxAttempts"], field: "\(field).maxAttempts", range: 1...100, example: "maxAttempts: 5")
                ?? settings.maxAttempts
            settings.initialBackoff =
                reader.duration(retryMap["initialBackoff"], field: "\(field).initialBackoff", example: "initialBackoff: 100ms")
                ?? settings.initialBackoff
            settings.maxBackoff =
                reader.duration(retryMap["maxBackoff"], field: "\(field).maxBackoff", example: "maxBackoff: 10s") ?? settings.maxBackoff
            settings.budget = reader.duration(retryMap["budget"], field: "\(field).budget", example: "budget: 60s") ?? settings.budget
            if settings.maxBackoff < settings.initialBackoff {
                reader.issue(
                    retryMap["maxBackoff"], field: "\(field).maxBackoff", problem: "is shorter than initialBackoff",
                    fix: "make maxBackoff at least initialBackoff")
            }
            retry = settings
        }
        guard let executor, let iterations else { return nil }
        return ScenarioSpec(
            name: name, executor: executor, vus: vus, iterations: iterations, maxDuration: maxDuration,
            operation: operation, layer: layer, batchSize: batchSize, rollbackOnFailure: rollback, retry: retry,
            clientGlobalIds: clientGlobalIds)
    }

    private static func readComparison(
        _ node: Node, field: String, known: Set<String>, _ reader: inout NodeReader
    ) -> ScenarioPlan.Comparison? {
        guard let map = reader.mapping(node, field: field, allowed: compareKeys) else { return nil }
        let names = known.sorted().joined(separator: ", ")
        func scenarioName(_ key: String) -> String? {
            guard
                let value = reader.string(
                    map[key], field: "\(field).\(key)", required: true, parent: node, example: "\(key): <scenario name>")
            else { return nil }
            if !known.contains(value) {
                reader.issue(
                    map[key], field: "\(field).\(key)", problem: "no scenario is named '\(value)'",
                    fix: names.isEmpty ? "define the scenario under `scenarios:`" : "use one of: \(names)")
                return nil
            }
            return value
        }
        let baseline = scenarioName("baseline")
        let candidate = scenarioName("candidate")
        var metric = "editsPerSecond"
        if let text = reader.string(map["metric"], field: "\(field).metric", required: false, parent: node, example: "") {
            let metrics = ["editsPerSecond", "requestsPerSecond"]
            if metrics.contains(text) {
                metric = text
            } else {
                reader.issue(
                    map["metric"], field: "\(field).metric", problem: "unknown metric '\(text)'",
                    fix: "use one of: \(metrics.joined(separator: ", "))")
            }
        }
        let minRatio = reader.double(map["min"], field: "\(field).min", example: "min: 10")
        guard let baseline, let candidate else { return nil }
        if baseline == candidate {
            reader.issue(
                map["candidate"], field: "\(field).candidate", problem: "compares '\(baseline)' with itself",
                fix: "name two different scenarios")
        }
        return ScenarioPlan.Comparison(baseline: baseline, candidate: candidate, metric: metric, minRatio: minRatio)
    }

    static func syntaxIssue(_ error: any Error, file: String) -> ScenarioIssue {
        if let yamlError = error as? YamlError {
            switch yamlError {
            case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
                .composer(let context, let problem, let mark, _):
                let while_ = context.map { " (\($0.text))" } ?? ""
                return ScenarioIssue(
                    file: file, line: mark.line, column: mark.column, field: "",
                    problem: "YAML syntax: \(problem)\(while_)",
                    fix: "check the indentation and punctuation on this line and the one above")
            case .duplicatedKeysInMapping(let duplicates, let context):
                return ScenarioIssue(
                    file: file, line: context.mark.line, column: context.mark.column, field: duplicates.joined(separator: ", "),
                    problem: "the key appears more than once", fix: "keep one of them")
            default:
                break
            }
        }
        return ScenarioIssue(
            file: file, line: nil, column: nil, field: "", problem: "not readable as YAML: \(error)",
            fix: "save the file as UTF-8 YAML")
    }
}
