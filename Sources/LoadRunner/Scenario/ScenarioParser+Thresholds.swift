import Yams

extension ScenarioParser {
    /// `thresholds:` — metric (with an optional tag filter) → a condition, a list of them, or object forms.
    static func readThresholds(_ node: Node, scenarios: [ScenarioSpec], _ reader: inout NodeReader) -> [ThresholdSpec] {
        guard let entries = reader.namedMapping(node, field: "thresholds") else { return [] }
        var result: [ThresholdSpec] = []
        for (key, value) in entries {
            let field = "thresholds.\(key)"
            let keyNode: Node? = { if case .mapping(let m) = node { return m.first { $0.key.string == key }?.key } else { return nil } }()
            let parsed: (MetricName, [String: String])
            switch ThresholdParser.key(key) {
            case .success(let ok): parsed = ok
            case .failure(let problem):
                reader.issue(keyNode ?? value, field: field, problem: problem.problem, fix: problem.fix)
                continue
            }
            if let problem = producible(parsed.0, filter: parsed.1, scenarios: scenarios) {
                reader.issue(keyNode ?? value, field: field, problem: problem.problem, fix: problem.fix)
                continue
            }
            var conditions: [ThresholdSpec.Condition] = []
            let items: [Node]
            if case .sequence = value { items = reader.sequence(value, field: field) } else { items = [value] }
            for (index, item) in items.enumerated() {
                let itemField = items.count > 1 ? "\(field)[\(index)]" : field
                var text: String?
                var abort = false
                var delay = Duration.zero
                if case .mapping = item {
                    guard let map = reader.mapping(item, field: itemField, allowed: ["threshold", "abortOnFail", "delayAbortEval"]) else { continue }
                    text = reader.string(
                        map["threshold"], field: "\(itemField).threshold", required: true, parent: item, example: "threshold: p(95)<200")
                    abort = reader.bool(map["abortOnFail"], field: "\(itemField).abortOnFail") ?? false
                    delay =
                        reader.duration(map["delayAbortEval"], field: "\(itemField).delayAbortEval", example: "delayAbortEval: 10s", allowZero: true)
                        ?? .zero
                } else {
                    text = reader.string(item, field: itemField, required: true, parent: value, example: "p(95)<200")
                }
                guard let text else { continue }
                switch ThresholdParser.condition(text, metric: parsed.0) {
                case .success(var condition):
                    condition.abortOnFail = abort
                    condition.delayAbortEval = delay
                    conditions.append(condition)
                case .failure(let problem):
                    reader.issue(item, field: itemField, problem: problem.problem, fix: problem.fix)
                }
            }
            if !conditions.isEmpty { result.append(ThresholdSpec(key: key, metric: parsed.0, filter: parsed.1, conditions: conditions)) }
        }
        return result
    }

    /// Why no scenario can ever produce samples of `metric` with `filter` (k6 lets such typos pass silently), or nil.
    static func producible(_ metric: MetricName, filter: [String: String], scenarios: [ScenarioSpec]) -> ThresholdParser.Problem? {
        var candidates = scenarios
        if let name = filter["scenario"] {
            candidates = scenarios.filter { $0.name == name }
            if candidates.isEmpty {
                return .init(problem: "no scenario is named '\(name)'", fix: "use one of: \(scenarios.map(\.name).joined(separator: ", "))")
            }
        }
        for (tag, value) in filter where !["scenario", "operation", "status"].contains(tag) {
            candidates = candidates.filter { $0.tags[tag] == value }
            if candidates.isEmpty {
                return .init(
                    problem: "no scenario has the tag \(tag):\(value)", fix: "tag a scenario with `tags: { \(tag): \(value) }`, or fix the filter")
            }
        }
        if let label = filter["operation"] {
            let labels = Set(candidates.flatMap { $0.operations.map(\.label) })
            if !labels.contains(label) {
                return .init(problem: "no scenario runs an operation '\(label)'", fix: "use one of: \(labels.sorted().joined(separator: ", "))")
            }
            candidates = candidates.filter { $0.operations.contains { $0.label == label } }
        }
        switch metric {
        case .droppedIterations where !candidates.contains(where: \.executor.isOpenModel):
            return .init(
                problem: "only arrival-rate executors drop iterations, and no scenario here uses one",
                fix: "remove this threshold, or use constant-arrival-rate")
        case .edits, .editFailed, .editOutcomeUnknown:
            let edits = candidates.contains { spec in
                spec.operations.contains { $0.editsPerIteration > 0 && (filter["operation"] == nil || $0.label == filter["operation"]) }
            }
            if !edits {
                return .init(
                    problem: "no scenario here edits, so \(metric.rawValue) would have no samples",
                    fix: "remove this threshold, or filter on a scenario that edits")
            }
        default:
            break
        }
        return nil
    }

    static func readAuth(_ node: Node, _ reader: inout NodeReader) -> ScenarioPlan.Auth? {
        guard let map = reader.mapping(node, field: "auth", allowed: ["token", "username", "password", "tokenUrl"]) else { return nil }
        var auth = ScenarioPlan.Auth()
        auth.token = reader.string(map["token"], field: "auth.token", required: false, parent: node, example: "token: ${ARCGIS_TOKEN}")
        auth.username = reader.string(map["username"], field: "auth.username", required: false, parent: node, example: "username: ${ARCGIS_USER}")
        auth.password = reader.string(map["password"], field: "auth.password", required: false, parent: node, example: "password: ${ARCGIS_PASSWORD}")
        auth.tokenURL = reader.string(
            map["tokenUrl"], field: "auth.tokenUrl", required: false, parent: node, example: "tokenUrl: https://host/arcgis/tokens/generateToken")
        if auth.token != nil && (auth.username != nil || auth.password != nil) {
            reader.issue(node, field: "auth", problem: "has both a token and a username/password", fix: "keep one way to authenticate")
        } else if auth.token == nil && (auth.username == nil || auth.password == nil) {
            reader.issue(
                node, field: "auth", problem: "needs `token`, or both `username` and `password`", fix: "write e.g. `auth: { token: ${ARCGIS_TOKEN} }`"
            )
        }
        for key in ["token", "password"] {
            if case .scalar(let scalar) = map[key] ?? .scalar(.init("")), !scalar.string.isEmpty, !scalar.string.contains("${") {
                reader.issue(
                    map[key], field: "auth.\(key)", problem: "is written in the file as plain text",
                    fix: "write `${ENV_NAME}` and export the secret in the environment")
            }
        }
        return auth
    }

    static func readTLS(_ node: Node, _ reader: inout NodeReader) -> ScenarioPlan.TLS? {
        guard let map = reader.mapping(node, field: "tls", allowed: ["caFile", "insecure"]) else { return nil }
        return ScenarioPlan.TLS(
            caFile: reader.string(map["caFile"], field: "tls.caFile", required: false, parent: node, example: "caFile: ca.pem"),
            insecure: reader.bool(map["insecure"], field: "tls.insecure") ?? false)
    }
}
