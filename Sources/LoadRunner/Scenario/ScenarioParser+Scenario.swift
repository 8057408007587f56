import Yams

extension ScenarioParser {
    static let commonScenarioKeys = [
        "executor", "startTime", "startAfter", "gracefulStop", "tags", "exec", "operation", "mix", "retry", "thinkTime", "setup",
        "sweep",
    ]
    static var executorKeys: [String] { ExecutorKind.allKeys.map(\.name) }

    /// One scenario, with the command line's `overrides` applied to its executor.
    static func readScenario(
        name: String, _ node: Node, overrides: ScenarioOverrides = ScenarioOverrides(), _ reader: inout NodeReader
    ) -> ScenarioSpec? {
        let path = "scenarios.\(name)"
        guard let map = reader.mapping(node, field: path, allowed: commonScenarioKeys + executorKeys + operationKeys) else { return nil }
        let input = MappingInput(map: map, node: node, path: path)
        let executor = readExecutor(input, &reader).map { applying(overrides, to: $0, map: map, node: node, path: path, &reader) }
        let operations = readWorkload(map, node: node, path: path, &reader)
        guard let executor, let operations else { return nil }
        var spec = ScenarioSpec(name: name, executor: executor, operations: operations)
        spec.startTime = input.read(.startTime, &reader)
        spec.gracefulStop = input.read(.gracefulStop, &reader)
        spec.startAfter = input.read(.startAfter, &reader)
        if let tagsNode = map["tags"], let entries = reader.namedMapping(tagsNode, field: "\(path).tags") {
            for (key, value) in entries {
                if let text = reader.string(value, field: "\(path).tags.\(key)", required: true, parent: tagsNode, example: "\(key): value") {
                    spec.tags[key] = text
                }
            }
            for key in spec.tags.keys.sorted() {
                guard let problem = TagName.problem(key) else { continue }
                reader.issue(tagsNode, field: "\(path).tags.\(key)", problem: "cannot be a tag: \(problem)", fix: "rename the tag")
            }
        }
        if let retryNode = map["retry"] { spec.retry = readRetry(retryNode, field: "\(path).retry", &reader) }
        if let thinkNode = map["thinkTime"] { spec.thinkTime = readThinkTime(thinkNode, field: "\(path).thinkTime", &reader) }
        if let setupNode = map["setup"], let setup = reader.mapping(setupNode, field: "\(path).setup", allowed: setupKeys.map(\.name)) {
            spec.setup.seed = ScenarioKey.setupSeed.read(setup, path: "\(path).setup", &reader)
            spec.setup.sample = ScenarioKey.setupSample.read(setup, path: "\(path).setup", &reader)
        }
        for problem in executor.validate() {
            reader.issue(map[problem.field] ?? node, field: "\(path).\(problem.field)", problem: problem.problem, fix: problem.fix)
        }
        if let sweepNode = map["sweep"] {
            spec.sweep = readSweep(sweepNode, spec: spec, path: "\(path).sweep", &reader)
            checkSweep(overrides, spec.sweep, node: sweepNode, path: path, &reader)
        }
        return spec
    }

    /// `sweep: { vus: [1, 2, 4, 8], warmUp: 2s, slo: 200ms }`: exactly one of vus (constant-vus), rate
    /// (constant-arrival-rate) or batchSize (one operation); warmUp for time-based executors (default 2s).
    static func readSweep(_ node: Node, spec: ScenarioSpec, path: String, _ reader: inout NodeReader) -> Sweep? {
        guard let map = reader.mapping(node, field: path, allowed: Sweep.Parameter.allCases.map(\.rawValue) + ["warmUp", "slo"]) else { return nil }
        let given = Sweep.Parameter.allCases.filter { map[$0.rawValue] != nil }
        guard given.count == 1, let parameter = given.first, let listNode = map[parameter.rawValue] else {
            reader.issue(
                node, field: path, problem: given.isEmpty ? "names no parameter to sweep" : "sweeps more than one parameter",
                fix: "sweep exactly one of vus, rate or batchSize, e.g. `sweep: { vus: [1, 2, 4, 8] }`")
            return nil
        }
        let field = "\(path).\(parameter.rawValue)"
        var values: [Int] = []
        for (index, item) in reader.sequence(listNode, field: field).enumerated() {
            if let value = KeyValueType.sweepValue.read(
                KeyRead(node: item, field: "\(field)[\(index)]", example: "\(parameter.rawValue): [1, 2, 4, 8]"), &reader)
            {
                values.append(value)
            }
        }
        if values.isEmpty || Set(values).count != values.count {
            reader.issue(
                listNode, field: field, problem: values.isEmpty ? "lists no values" : "lists a value twice",
                fix: "list distinct values, e.g. `[1, 2, 4, 8]`")
        }
        let owner = spec.executor.owner
        let timeBased = owner.lasting(owner.scheduledDuration) != nil
        switch parameter {
        case .vus:
            if owner.sweeping(.vus, 1) == nil {
                reader.issue(
                    listNode, field: field, problem: "sweeps VUs, which only constant-vus has",
                    fix: "use `executor: constant-vus`, or sweep rate or batchSize")
            }
        case .rate:
            if owner.sweeping(.rate, 1) == nil {
                reader.issue(
                    listNode, field: field, problem: "sweeps the rate, which only constant-arrival-rate has",
                    fix: "use `executor: constant-arrival-rate`")
            }
        case .batchSize:
            var editsExisting = false
            if case .applyEdits(let edits) = spec.operations.first?.settings { editsExisting = edits.updates + edits.deletes > 0 }
            if spec.operations.count != 1 || editsExisting {
                reader.issue(
                    listNode, field: field, problem: "sweeps the batch size of a mix or of an applyEdits with updates or deletes",
                    fix: "sweep batchSize on one operation (`exec:`), e.g. applyEdits with adds")
            }
        }
        var warmUp: Duration = timeBased ? .seconds(2) : .zero
        if let warmNode = map["warmUp"] {
            let value = reader.duration(warmNode, field: "\(path).warmUp", example: "warmUp: 2s", allowZero: true)
            if let value, value > .zero, !timeBased {
                reader.issue(
                    warmNode, field: "\(path).warmUp", problem: "needs a time-based executor (constant-vus or constant-arrival-rate)",
                    fix: "use one of them, or write `warmUp: 0s`")
            }
            warmUp = value ?? warmUp
        }
        let slo = map["slo"].flatMap { reader.duration($0, field: "\(path).slo", example: "slo: 200ms") }
        return Sweep(parameter: parameter, values: values, warmUp: warmUp, slo: slo)
    }

    /// `executor:` and the keys of the executor it names: another executor's key is a problem, and so is a key the
    /// executor cannot do without left out. When the executor is unknown, the executors' keys given are still
    /// checked, so that their problems are reported in the same pass.
    private static func readExecutor(_ input: MappingInput, _ reader: inout NodeReader) -> ExecutorConfig? {
        let names = ExecutorConfig.names
        guard
            let text = reader.string(
                input.map["executor"], field: "\(input.path).executor", required: true, parent: input.node, example: "executor: shared-iterations")
        else { return nil }
        guard let kind = ExecutorKind(rawValue: text) else {
            let suggestion = closest(to: text, in: names).map { "did you mean `\($0)`? " } ?? ""
            reader.issue(
                input.map["executor"], field: "\(input.path).executor", problem: "unknown executor '\(text)'",
                fix: "\(suggestion)use one of: \(names.joined(separator: ", "))")
            for key in ExecutorKind.allKeys where input.has(key.name) { key.check(input, &reader) }
            return nil
        }
        let owner = kind.settingsType
        let own = Set(owner.keyNames)
        for (key, _) in input.map {
            let keyName = key.string ?? ""
            if executorKeys.contains(keyName) && !own.contains(keyName) {
                reader.issue(
                    key, field: "\(input.path).\(keyName)", problem: "does not apply to executor \(text)",
                    fix: "\(text) takes \(own.sorted().joined(separator: ", ")); remove `\(keyName)`")
            }
        }
        for key in owner.keys where owner.requiredKeys.contains(key.name) { input.require(key, "missing", fix: "add `\(key.example)`", &reader) }
        return owner.read(input, &reader)?.executor
    }

    /// A ramping executor's `stages`: a list of `{ duration, target }`.
    static func readStages(_ node: Node, field: String, _ reader: inout NodeReader) -> [Stage]? {
        var stages: [Stage] = []
        for (index, item) in reader.sequence(node, field: field).enumerated() {
            let path = "\(field)[\(index)]"
            guard let map = reader.mapping(item, field: path, allowed: ["duration", "target"]) else { continue }
            let duration = reader.duration(map["duration"], field: "\(path).duration", example: "duration: 30s", allowZero: true)
            let stage = MappingInput(map: map, node: item, path: path)
            let target = stage.required(.stageTarget, &reader)
            if map["duration"] == nil { reader.issue(item, field: "\(path).duration", problem: "missing", fix: "add `duration: 30s`") }
            if let duration, let target { stages.append(Stage(duration: duration, target: target)) }
        }
        return stages
    }

    static func readRetry(_ node: Node, field: String, _ reader: inout NodeReader) -> ScenarioSpec.Retry? {
        guard let map = reader.mapping(node, field: field, allowed: retryKeys) else { return nil }
        var settings = ScenarioSpec.Retry()
        settings.maxAttempts = ScenarioKey.maxAttempts.read(map, path: field, &reader)
        settings.initialBackoff = ScenarioKey.initialBackoff.read(map, path: field, &reader)
        settings.maxBackoff = ScenarioKey.maxBackoff.read(map, path: field, &reader)
        settings.budget = ScenarioKey.retryBudget.read(map, path: field, &reader)
        if settings.maxBackoff < settings.initialBackoff {
            reader.issue(
                map["maxBackoff"], field: "\(field).maxBackoff", problem: "is shorter than initialBackoff",
                fix: "make maxBackoff at least initialBackoff")
        }
        return settings
    }

    private static func readThinkTime(_ node: Node, field: String, _ reader: inout NodeReader) -> ScenarioSpec.ThinkTime? {
        if case .mapping = node {
            guard let map = reader.mapping(node, field: field, allowed: ["min", "max"]) else { return nil }
            let low = reader.duration(map["min"], field: "\(field).min", example: "min: 500ms", allowZero: true)
            let high = reader.duration(map["max"], field: "\(field).max", example: "max: 2s")
            guard let low, let high else {
                reader.issue(node, field: field, problem: "needs both min and max", fix: "write `thinkTime: { min: 500ms, max: 2s }`")
                return nil
            }
            if high < low { reader.issue(map["max"], field: "\(field).max", problem: "is below min", fix: "make max at least min") }
            return .uniform(low, high)
        }
        return reader.duration(node, field: field, example: "thinkTime: 1s", allowZero: true).map { .fixed($0) }
    }

    /// Every scenario's `startAfter` names another scenario, and the chain has no cycle.
    static func checkStartAfter(_ scenarios: [ScenarioSpec], entries: [(String, Node)], _ reader: inout NodeReader) {
        let names = Set(scenarios.map(\.name))
        let nodes = Dictionary(entries, uniquingKeysWith: { first, _ in first })
        for spec in scenarios {
            guard let after = spec.startAfter else { continue }
            let node: Node? = nodes[spec.name].flatMap { if case .mapping(let m) = $0 { return m["startAfter"] } else { return nil } }
            if !names.contains(after) || after == spec.name {
                reader.issue(
                    node, field: "scenarios.\(spec.name).startAfter", problem: "no other scenario is named '\(after)'",
                    fix: "use one of: \(names.subtracting([spec.name]).sorted().joined(separator: ", "))")
                continue
            }
            var seen: Set<String> = [spec.name]
            var current: String? = after
            while let name = current {
                if seen.contains(name) {
                    reader.issue(
                        node, field: "scenarios.\(spec.name).startAfter", problem: "the startAfter chain loops back to itself", fix: "break the cycle"
                    )
                    break
                }
                seen.insert(name)
                current = scenarios.first { $0.name == name }?.startAfter
            }
        }
    }
}
