import Yams

extension ScenarioParser {
    static let commonScenarioKeys = [
        "executor", "startTime", "startAfter", "gracefulStop", "tags", "exec", "operation", "mix", "retry", "thinkTime", "setup",
        "sweep",
    ]
    static let executorKeys: [String: [String]] = [
        "shared-iterations": ["vus", "iterations", "maxDuration"],
        "per-vu-iterations": ["vus", "iterations", "maxDuration"],
        "constant-vus": ["vus", "duration"],
        "ramping-vus": ["startVUs", "stages", "gracefulRampDown"],
        "constant-arrival-rate": ["rate", "timeUnit", "duration", "preAllocatedVUs", "maxVUs"],
        "ramping-arrival-rate": ["startRate", "timeUnit", "stages", "preAllocatedVUs", "maxVUs"],
    ]
    static var allExecutorKeys: [String] { Array(Set(executorKeys.values.flatMap { $0 })).sorted() }

    /// One scenario, with the command line's `overrides` applied to its executor.
    static func readScenario(name: String, _ node: Node, overrides: ScenarioOverrides = ScenarioOverrides(), _ reader: inout NodeReader) -> ScenarioSpec? {
        let path = "scenarios.\(name)"
        guard let map = reader.mapping(node, field: path, allowed: commonScenarioKeys + allExecutorKeys + operationKeys) else { return nil }
        var executorName: String?
        if let text = reader.string(map["executor"], field: "\(path).executor", required: true, parent: node, example: "executor: shared-iterations") {
            if executorKeys[text] == nil {
                let suggestion = closest(to: text, in: ExecutorConfig.names).map { "did you mean `\($0)`? " } ?? ""
                reader.issue(
                    map["executor"], field: "\(path).executor", problem: "unknown executor '\(text)'",
                    fix: "\(suggestion)use one of: \(ExecutorConfig.names.joined(separator: ", "))")
            } else {
                executorName = text
            }
        }
        if let executorName {
            let own = Set(executorKeys[executorName] ?? [])
            for (key, _) in map {
                let keyName = key.string ?? ""
                if allExecutorKeys.contains(keyName) && !own.contains(keyName) {
                    reader.issue(
                        key, field: "\(path).\(keyName)", problem: "does not apply to executor \(executorName)",
                        fix: "\(executorName) takes \(own.sorted().joined(separator: ", ")); remove `\(keyName)`")
                }
            }
        }
        if executorName == nil { checkExecutorValues(map, path: path, &reader) }
        let executor = executorName.flatMap { readExecutor($0, map, node: node, path: path, &reader) }.map {
            applying(overrides, to: $0, map: map, node: node, path: path, &reader)
        }
        let operations = readWorkload(map, node: node, path: path, &reader)
        guard let executor, let operations else { return nil }
        var spec = ScenarioSpec(name: name, executor: executor, operations: operations)
        spec.startTime = reader.duration(map["startTime"], field: "\(path).startTime", example: "startTime: 30s", allowZero: true) ?? .zero
        spec.gracefulStop = reader.duration(map["gracefulStop"], field: "\(path).gracefulStop", example: "gracefulStop: 30s", allowZero: true) ?? .seconds(30)
        spec.startAfter = reader.string(map["startAfter"], field: "\(path).startAfter", required: false, parent: node, example: "startAfter: warmup")
        if let tagsNode = map["tags"], let entries = reader.namedMapping(tagsNode, field: "\(path).tags") {
            for (key, value) in entries {
                if let text = reader.string(value, field: "\(path).tags.\(key)", required: true, parent: tagsNode, example: "\(key): value") {
                    spec.tags[key] = text
                }
            }
            for reserved in ["scenario", "operation", "status"] where spec.tags[reserved] != nil {
                reader.issue(tagsNode, field: "\(path).tags.\(reserved)", problem: "is set by featureload", fix: "choose another tag name")
            }
        }
        if let retryNode = map["retry"] { spec.retry = readRetry(retryNode, field: "\(path).retry", &reader) }
        if let thinkNode = map["thinkTime"] { spec.thinkTime = readThinkTime(thinkNode, field: "\(path).thinkTime", &reader) }
        if let setupNode = map["setup"], let setup = reader.mapping(setupNode, field: "\(path).setup", allowed: ["seed", "sample"]) {
            spec.setup.seed = reader.int(setup["seed"], field: "\(path).setup.seed", range: 0...1_000_000, example: "seed: 1000") ?? 0
            spec.setup.sample = reader.int(setup["sample"], field: "\(path).setup.sample", range: 0...1_000_000, example: "sample: 10000") ?? 10_000
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
            if let value = reader.int(item, field: "\(field)[\(index)]", range: 1...1_000_000, example: "\(parameter.rawValue): [1, 2, 4, 8]") {
                values.append(value)
            }
        }
        if values.isEmpty || Set(values).count != values.count {
            reader.issue(listNode, field: field, problem: values.isEmpty ? "lists no values" : "lists a value twice", fix: "list distinct values, e.g. `[1, 2, 4, 8]`")
        }
        let timeBased: Bool
        switch spec.executor {
        case .constantVUs, .constantArrivalRate: timeBased = true
        default: timeBased = false
        }
        switch parameter {
        case .vus:
            if case .constantVUs = spec.executor {} else {
                reader.issue(listNode, field: field, problem: "sweeps VUs, which only constant-vus has", fix: "use `executor: constant-vus`, or sweep rate or batchSize")
            }
        case .rate:
            if case .constantArrivalRate = spec.executor {} else {
                reader.issue(listNode, field: field, problem: "sweeps the rate, which only constant-arrival-rate has", fix: "use `executor: constant-arrival-rate`")
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

    private static func readExecutor(_ name: String, _ map: Node.Mapping, node: Node, path: String, _ reader: inout NodeReader) -> ExecutorConfig? {
        func int(_ key: String, _ range: ClosedRange<Int>, _ example: String, required: Bool = false) -> Int? {
            reader.int(map[key], field: "\(path).\(key)", range: range, example: example, required: required, parent: node)
        }
        func duration(_ key: String, _ example: String, required: Bool = false) -> Duration? {
            let value = reader.duration(map[key], field: "\(path).\(key)", example: example)
            if value == nil && required && map[key] == nil { reader.issue(node, field: "\(path).\(key)", problem: "missing", fix: "add `\(example)`") }
            return value
        }
        switch name {
        case "shared-iterations", "per-vu-iterations":
            let vus = int("vus", 1...10_000, "vus: 8") ?? 1
            let iterations = int("iterations", 1...100_000_000, "iterations: 1000", required: name == "shared-iterations") ?? 1
            let maxDuration = duration("maxDuration", "maxDuration: 10m") ?? .seconds(600)
            if name == "per-vu-iterations" { return .perVUIterations(.init(vus: vus, iterations: iterations, maxDuration: maxDuration)) }
            if map["iterations"] == nil { return nil }
            return .sharedIterations(.init(vus: vus, iterations: iterations, maxDuration: maxDuration))
        case "constant-vus":
            let vus = int("vus", 1...10_000, "vus: 8") ?? 1
            guard let d = duration("duration", "duration: 30s", required: true) else { return nil }
            return .constantVUs(.init(vus: vus, duration: d))
        case "ramping-vus":
            let start = int("startVUs", 0...10_000, "startVUs: 0") ?? 1
            let stages = readStages(map["stages"], node: node, field: "\(path).stages", &reader)
            let rampDown = duration("gracefulRampDown", "gracefulRampDown: 30s") ?? .seconds(30)
            guard let stages else { return nil }
            return .rampingVUs(.init(startVUs: start, stages: stages, gracefulRampDown: rampDown))
        case "constant-arrival-rate":
            let rate = int("rate", 1...10_000_000, "rate: 100", required: true)
            let unit = duration("timeUnit", "timeUnit: 1s") ?? .seconds(1)
            let d = duration("duration", "duration: 1m", required: true)
            let pre = int("preAllocatedVUs", 1...10_000, "preAllocatedVUs: 20", required: true)
            let max = int("maxVUs", 1...10_000, "maxVUs: 100")
            guard let rate, let d, let pre else { return nil }
            return .constantArrivalRate(.init(rate: rate, timeUnit: unit, duration: d, preAllocatedVUs: pre, maxVUs: max))
        default:
            let start = int("startRate", 0...10_000_000, "startRate: 0") ?? 0
            let unit = duration("timeUnit", "timeUnit: 1s") ?? .seconds(1)
            let stages = readStages(map["stages"], node: node, field: "\(path).stages", &reader)
            let pre = int("preAllocatedVUs", 1...10_000, "preAllocatedVUs: 20", required: true)
            let max = int("maxVUs", 1...10_000, "maxVUs: 100")
            guard let stages, let pre else { return nil }
            return .rampingArrivalRate(.init(startRate: start, timeUnit: unit, stages: stages, preAllocatedVUs: pre, maxVUs: max))
        }
    }

    /// Type checks of the executor settings present when the executor itself is unknown, so that their problems are
    /// reported in the same pass.
    private static func checkExecutorValues(_ map: Node.Mapping, path: String, _ reader: inout NodeReader) {
        for key in ["maxDuration", "duration", "gracefulRampDown", "timeUnit"] where map[key] != nil {
            _ = reader.duration(map[key], field: "\(path).\(key)", example: "\(key): 30s")
        }
        for key in ["vus", "iterations", "startVUs", "rate", "startRate", "preAllocatedVUs", "maxVUs"] where map[key] != nil {
            _ = reader.int(map[key], field: "\(path).\(key)", range: 0...100_000_000, example: "\(key): 10")
        }
    }

    private static func readStages(_ node: Node?, node parent: Node, field: String, _ reader: inout NodeReader) -> [Stage]? {
        guard let node else {
            reader.issue(parent, field: field, problem: "missing", fix: "add `stages: [{ duration: 30s, target: 10 }, { duration: 1m, target: 10 }]`")
            return nil
        }
        var stages: [Stage] = []
        for (index, item) in reader.sequence(node, field: field).enumerated() {
            let path = "\(field)[\(index)]"
            guard let map = reader.mapping(item, field: path, allowed: ["duration", "target"]) else { continue }
            let duration = reader.duration(map["duration"], field: "\(path).duration", example: "duration: 30s", allowZero: true)
            let target = reader.int(map["target"], field: "\(path).target", range: 0...10_000_000, example: "target: 10", required: true, parent: item)
            if map["duration"] == nil { reader.issue(item, field: "\(path).duration", problem: "missing", fix: "add `duration: 30s`") }
            if let duration, let target { stages.append(Stage(duration: duration, target: target)) }
        }
        return stages
    }

    static func readRetry(_ node: Node, field: String, _ reader: inout NodeReader) -> ScenarioSpec.Retry? {
        guard let map = reader.mapping(node, field: field, allowed: retryKeys) else { return nil }
        var settings = ScenarioSpec.Retry()
        settings.maxAttempts = reader.int(map["maxAttempts"], field: "\(field).maxAttempts", range: 1...100, example: "maxAttempts: 5") ?? settings.maxAttempts
        settings.initialBackoff =
            reader.duration(map["initialBackoff"], field: "\(field).initialBackoff", example: "initialBackoff: 100ms") ?? settings.initialBackoff
        settings.maxBackoff = reader.duration(map["maxBackoff"], field: "\(field).maxBackoff", example: "maxBackoff: 10s") ?? settings.maxBackoff
        settings.budget = reader.duration(map["budget"], field: "\(field).budget", example: "budget: 60s") ?? settings.budget
        if settings.maxBackoff < settings.initialBackoff {
            reader.issue(map["maxBackoff"], field: "\(field).maxBackoff", problem: "is shorter than initialBackoff", fix: "make maxBackoff at least initialBackoff")
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
                    reader.issue(node, field: "scenarios.\(spec.name).startAfter", problem: "the startAfter chain loops back to itself", fix: "break the cycle")
                    break
                }
                seen.insert(name)
                current = scenarios.first { $0.name == name }?.startAfter
            }
        }
    }
}
