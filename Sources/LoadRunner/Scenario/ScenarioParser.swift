import Yams

/// Reads a scenario file's YAML into a ``ScenarioPlan``, collecting every problem at once.
///
/// Pure: no I/O beyond the text handed in. Each problem names the file, line, column, field and the fix.
///
/// ```swift
/// let plan = try ScenarioParser.parse(yaml: text, file: "Scenarios/quickstart.yaml")
/// ```
package enum ScenarioParser {
    /// Parses and validates a scenario file.
    /// - Parameters:
    ///   - yaml: The file's text.
    ///   - file: The path to name in messages.
    ///   - environment: Variables for `${NAME}` in values.
    /// - Returns: The validated plan.
    /// - Throws: ``ScenarioFileError`` listing every problem found.
    package static func parse(yaml: String, file: String, environment: [String: String] = [:]) throws(ScenarioFileError) -> ScenarioPlan {
        try parse(yaml: yaml, file: file, options: ScenarioParseOptions(variables: ScenarioVariables(environment: environment)))
    }

    /// Parses and validates a scenario file as the command line changes it: its variables' values, k6's overrides
    /// and scenario selection, and the run's tags (all recorded in the plan, for the report).
    /// - Parameters:
    ///   - yaml: The file's text.
    ///   - file: The path to name in messages.
    ///   - options: What the command line adds (the CLI passes the process environment in its variables).
    /// - Returns: The validated plan.
    /// - Throws: ``ScenarioFileError`` listing every problem found, an override an executor does not take and a
    ///   variable set nowhere included.
    package static func parse(yaml: String, file: String, options: ScenarioParseOptions) throws(ScenarioFileError) -> ScenarioPlan {
        var reader = NodeReader(file: file, variables: options.variables)
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
        if var plan = readPlan(root, options: options, &reader), reader.issues.isEmpty {
            plan.variablesUsed = reader.variablesUsed
            plan.overrides = options.overrides
            plan.tags = options.tags
            return plan
        }
        let ordered = reader.issues.sorted { ($0.line ?? 0, $0.column ?? 0) < ($1.line ?? 0, $1.column ?? 0) }
        throw ScenarioFileError(file: file, issues: ordered)
    }

    static let topLevelKeys = [
        "version", "name", "description", "target", "local", "seed", "verify", "maxFailedEditRate", "maxFailedRequestRate", "scenarios", "compare",
        "thresholds", "auth", "tls", "requestTimeout",
    ]
    static let retryKeys = retrySettingKeys.map(\.name)
    static let compareKeys = ["baseline", "candidate", "metric", "min"]

    private static func readPlan(_ root: Node, options: ScenarioParseOptions, _ reader: inout NodeReader) -> ScenarioPlan? {
        guard let top = reader.mapping(root, field: "", allowed: topLevelKeys) else { return nil }
        if top["version"] == nil {
            // The two versions run the same scenarios differently; a file must say which it means.
            reader.issue(
                root, field: "version",
                problem: "the file does not say its format version, and the two run its scenarios differently: version 1 runs them one after "
                    + "another in file order; version 2 runs them at the same time, each from its startTime or after its startAfter scenario, as k6 does",
                fix: "add `version: 2` as the first line for k6's meaning, or `version: 1` to run the scenarios one after another")
        }
        // A file without a version is refused above; its scenarios are still checked as version 2 reads them.
        let version = ScenarioKey.version.read(top, path: "", &reader) ?? 2
        let name = reader.string(top["name"], field: "name", required: true, parent: root, example: "name: quickstart")
        let description = reader.string(top["description"], field: "description", required: false, parent: root, example: "")
        let seed = ScenarioKey.seed.read(top, path: "", &reader)
        let verify = ScenarioKey.verify.read(top, path: "", &reader)
        let maxFailedEditRate = ScenarioKey.maxFailedEditRate.read(top, path: "", &reader)
        let maxFailedRequestRate = ScenarioKey.maxFailedRequestRate.read(top, path: "", &reader)
        let target = readTarget(top, root: root, &reader)

        // Every scenario of the file (sweeps expanded) is checked; those the command line selects run.
        let (all, scenarios) = readScenarios(top, root: root, options: options, &reader)
        let declared = Set(all.map(\.name))

        var comparisons: [ScenarioPlan.Comparison] = []
        if let compareNode = top["compare"] {
            let known = declared
            for (index, item) in reader.sequence(compareNode, field: "compare").enumerated() {
                if let comparison = readComparison(item, field: "compare[\(index)]", known: known, &reader) {
                    comparisons.append(comparison)
                }
            }
        }
        var thresholds: [ThresholdSpec] = []
        if let node = top["thresholds"] { thresholds = readThresholds(node, scenarios: all, &reader) }
        let auth = top["auth"].flatMap { readAuth($0, &reader) }
        let tls = top["tls"].flatMap { readTLS($0, &reader) }
        let requestTimeout = reader.duration(top["requestTimeout"], field: "requestTimeout", example: "requestTimeout: 60s")
        guard let name, let target else { return nil }
        var plan = ScenarioPlan(
            version: version, name: name, description: description, target: target, seed: UInt64(seed),
            scenarios: scenarios, comparisons: comparisons, verify: verify,
            maxFailedEditRate: maxFailedEditRate, thresholds: thresholds)
        plan.maxFailedRequestRate = maxFailedRequestRate
        plan.auth = auth
        plan.tls = tls
        plan.requestTimeout = requestTimeout
        if let localNode = top["local"] { plan.local = readLocalService(localNode, &reader) }
        if all.count != scenarios.count {
            let notes = leavingOut(all.filter { spec in !scenarios.contains { $0.name == spec.name } }, from: &plan)
            plan.notes += notes
        }
        return plan
    }

    /// `local: { rows: 500, faults: ["http503:0.1"], latency: "fixed:20", faultSeed: 7 }`.
    private static func readLocalService(_ node: Node, _ reader: inout NodeReader) -> ScenarioPlan.LocalService {
        var local = ScenarioPlan.LocalService()
        guard case .mapping(let map) = node else { return local }
        local.rows = ScenarioKey.rows.read(map, path: "local", &reader)
        if map[ScenarioKey.faultSeed.name] != nil { local.faultSeed = UInt64(ScenarioKey.faultSeed.read(map, path: "local", &reader)) }
        func located(_ node: Node, field: String, _ reader: inout NodeReader) -> ScenarioPlan.Located? {
            guard let text = reader.text(node, field: field) else {
                reader.issue(
                    node, field: field, problem: "expected a fault specification, got \(reader.kind(node))",
                    fix: "write it as for `serve`, e.g. \"http503:0.1\"")
                return nil
            }
            return ScenarioPlan.Located(text: text, field: field, line: node.mark?.line, column: node.mark?.column)
        }
        if let faults = map["faults"] {
            for (index, item) in reader.sequence(faults, field: "local.faults").enumerated() {
                if let value = located(item, field: "local.faults[\(index)]", &reader) { local.faults.append(value) }
            }
        }
        if let latency = map["latency"] { local.latency = located(latency, field: "local.latency", &reader) }
        return local
    }

    private static func readTarget(_ top: Node.Mapping, root: Node, _ reader: inout NodeReader) -> ScenarioPlan.Target? {
        var dataset = "parks"
        if let localNode = top["local"],
            let local = reader.mapping(localNode, field: "local", allowed: ["dataset", "rows", "faults", "latency", "faultSeed"])
        {
            dataset =
                reader.string(local["dataset"], field: "local.dataset", required: false, parent: localNode, example: "dataset: parks") ?? dataset
        }
        guard
            let text = reader.string(
                top["target"], field: "target", required: true, parent: root,
                example: "target: local  (or the https://…/FeatureServer URL of a live service)")
        else { return nil }
        if text == "local" { return .local(dataset: dataset) }
        switch FeatureServerURL.normalized(text) {
        case .success(let url): return .url(url)
        case .failure(let invalid):
            reader.issue(top["target"], field: "target", problem: invalid.problem, fix: invalid.fix)
            return nil
        }
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
