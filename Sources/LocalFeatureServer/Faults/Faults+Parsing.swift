import FeatureModel

extension LocalFeatureServerConfiguration.Faults {
    /// Settings from the JSON document `POST /arcgis/admin/faults` takes (and `GET` returns):
    ///
    /// ```json
    /// {"seed": 42,
    ///  "latency": {"distribution": "lognormal", "median": 20, "sigma": 0.5, "operation": "applyEdits"},
    ///  "faults": [{"kind": "http503", "rate": 0.05},
    ///             {"kind": "http429", "rate": 0.02, "retryAfter": 3},
    ///             {"kind": "stall", "rate": 0.01, "seconds": 5, "path": "*/FeatureServer/0/*"},
    ///             {"kind": "editFailure", "rate": 0.001}]}
    /// ```
    /// Distributions: `fixed` (`milliseconds`), `uniform` (`minimum`, `maximum`), `normal` (`mean`,
    /// `standardDeviation`), `lognormal` (`median`, `sigma`); times in milliseconds. Missing keys take the defaults
    /// (seed 1, no latency, no faults). `isAdminEnabled` is kept from `base`.
    /// - Returns: The settings, or every problem found (each naming the key).
    static func parse(json text: String, base: Self = Self()) -> Result<Self, FaultSettingsProblems> {
        let root: JSONValue
        do {
            root = try JSONReader.parse(text)
        } catch {
            return .failure(FaultSettingsProblems(["not valid JSON: \(error)"]))
        }
        guard case .object(let object) = root else { return .failure(FaultSettingsProblems(["expected a JSON object"])) }
        var problems: [String] = []
        var faults = Self(isAdminEnabled: base.isAdminEnabled)
        for key in object.keys where !["seed", "latency", "faults"].contains(key) { problems.append("unknown key '\(key)'") }
        if let seed = object["seed"] {
            if let value = seed.intValue, value >= 0 { faults.seed = UInt64(value) } else { problems.append("seed must be a non-negative integer") }
        }
        if let latency = object["latency"], !latency.isNull {
            faults.latency = parseLatency(latency, problems: &problems)
        }
        if let rules = object["faults"] {
            guard case .array(let items) = rules else { return .failure(FaultSettingsProblems(problems + ["faults must be an array"])) }
            for (index, item) in items.enumerated() {
                if let rule = parseRule(item, label: "faults[\(index)]", problems: &problems) {
                    problems += Self.problems(of: rule, label: "faults[\(index)]")
                    faults.rules.append(rule)
                }
            }
        }
        problems += faults.aggregateProblems
        return problems.isEmpty ? .success(faults) : .failure(FaultSettingsProblems(problems))
    }

    /// Every inconsistency of the settings: rates outside 0…1, request-level rates summing past 1, negative
    /// parameters or latencies.
    var problems: [String] {
        rules.enumerated().flatMap { Self.problems(of: $1, label: "faults[\($0)]") } + aggregateProblems
    }

    /// The problems of one rule, labelled `label`.
    static func problems(of rule: FaultRule, label: String) -> [String] {
        var problems: [String] = []
        if !(0...1).contains(rule.rate) { problems.append("\(label).rate must be 0…1, got \(rule.rate)") }
        if rule.retryAfterSeconds < 0 { problems.append("\(label).retryAfter must be ≥ 0") }
        if !(0...3600).contains(rule.stallSeconds) { problems.append("\(label).seconds must be 0…3600") }
        return problems
    }

    /// Problems of the settings as a whole: the sum of request-level rates and the latency parameters.
    var aggregateProblems: [String] {
        var problems: [String] = []
        // Exclusive rates only add up within one scope; check the worst case (all scopes overlapping).
        let requestLevel = rules.filter { $0.kind != .editFailure }.map(\.rate).reduce(0, +)
        if requestLevel > 1 + 1e-9 { problems.append("request-level fault rates add up to \((requestLevel * 1000).rounded() / 1000), more than 1") }
        if let latency {
            switch latency.distribution {
            case .fixed(let value) where value < 0: problems.append("latency.milliseconds must be ≥ 0")
            case .uniform(let low, let high) where low < 0 || high < low: problems.append("latency needs 0 ≤ minimum ≤ maximum")
            case .normal(_, let deviation) where deviation < 0: problems.append("latency.standardDeviation must be ≥ 0")
            case .logNormal(let median, let sigma) where median <= 0 || sigma < 0: problems.append("latency needs median > 0 and sigma ≥ 0")
            default: break
            }
        }
        return problems
    }

    private static func parseScope(_ object: [String: JSONValue], label: String, problems: inout [String]) -> FaultScope {
        var scope = FaultScope()
        for key in ["path", "operation"] {
            guard let value = object[key], !value.isNull else { continue }
            guard let text = value.stringValue, !text.isEmpty else {
                problems.append("\(label).\(key) must be a non-empty string")
                continue
            }
            if key == "path" { scope.path = text } else { scope.operation = text }
        }
        return scope
    }

    private static func number(_ object: [String: JSONValue], _ key: String, label: String, problems: inout [String]) -> Double {
        guard let value = object[key]?.doubleValue else {
            problems.append("\(label).\(key) must be a number")
            return 0
        }
        return value
    }

    private static func parseLatency(_ value: JSONValue, problems: inout [String]) -> FaultLatency? {
        guard case .object(let object) = value, let name = object["distribution"]?.stringValue else {
            problems.append("latency must be an object with a distribution (fixed, uniform, normal or lognormal)")
            return nil
        }
        let scope = parseScope(object, label: "latency", problems: &problems)
        func n(_ key: String) -> Double { number(object, key, label: "latency", problems: &problems) }
        switch name.lowercased() {
        case "fixed": return FaultLatency(.fixed(milliseconds: n("milliseconds")), scope: scope)
        case "uniform": return FaultLatency(.uniform(minimum: n("minimum"), maximum: n("maximum")), scope: scope)
        case "normal": return FaultLatency(.normal(mean: n("mean"), standardDeviation: n("standardDeviation")), scope: scope)
        case "lognormal": return FaultLatency(.logNormal(median: n("median"), sigma: n("sigma")), scope: scope)
        default:
            problems.append("latency.distribution must be fixed, uniform, normal or lognormal, got '\(name)'")
            return nil
        }
    }

    private static func parseRule(_ value: JSONValue, label: String, problems: inout [String]) -> FaultRule? {
        guard case .object(let object) = value else {
            problems.append("\(label) must be an object with kind and rate")
            return nil
        }
        guard let name = object["kind"]?.stringValue, let kind = FaultKind(caseInsensitive: name) else {
            problems.append("\(label).kind must be one of \(FaultKind.allCases.map(\.rawValue).joined(separator: ", "))")
            return nil
        }
        var rule = FaultRule(kind: kind, rate: number(object, "rate", label: label, problems: &problems))
        rule.scope = parseScope(object, label: label, problems: &problems)
        if let retryAfter = object["retryAfter"] {
            if let seconds = retryAfter.intValue {
                rule.retryAfterSeconds = Int(seconds)
            } else {
                problems.append("\(label).retryAfter must be an integer")
            }
        }
        if object["seconds"] != nil { rule.stallSeconds = number(object, "seconds", label: label, problems: &problems) }
        return rule
    }

    /// The settings as the JSON document ``parse(json:base:)`` reads, keys sorted.
    var json: JSONValue {
        var object: [String: JSONValue] = ["seed": .int(Int64(truncatingIfNeeded: seed))]
        if let latency {
            var entry = Self.scopeJSON(latency.scope)
            switch latency.distribution {
            case .fixed(let value):
                entry["distribution"] = "fixed"
                entry["milliseconds"] = .double(value)
            case .uniform(let low, let high):
                entry["distribution"] = "uniform"
                entry["minimum"] = .double(low)
                entry["maximum"] = .double(high)
            case .normal(let mean, let deviation):
                entry["distribution"] = "normal"
                entry["mean"] = .double(mean)
                entry["standardDeviation"] = .double(deviation)
            case .logNormal(let median, let sigma):
                entry["distribution"] = "lognormal"
                entry["median"] = .double(median)
                entry["sigma"] = .double(sigma)
            }
            object["latency"] = .object(entry)
        }
        object["faults"] = .array(
            rules.map { rule in
                var entry = Self.scopeJSON(rule.scope)
                entry["kind"] = .string(rule.kind.rawValue)
                entry["rate"] = .double(rule.rate)
                if rule.kind == .http429 { entry["retryAfter"] = .int(Int64(rule.retryAfterSeconds)) }
                if rule.kind == .stall { entry["seconds"] = .double(rule.stallSeconds) }
                return .object(entry)
            })
        return .object(object)
    }

    private static func scopeJSON(_ scope: FaultScope) -> [String: JSONValue] {
        var entry: [String: JSONValue] = [:]
        if let path = scope.path { entry["path"] = .string(path) }
        if let operation = scope.operation { entry["operation"] = .string(operation) }
        return entry
    }
}

/// Everything wrong with a fault specification, one line per problem.
struct FaultSettingsProblems: Error, Sendable, Hashable, CustomStringConvertible {
    /// The problems, each naming the key or argument at fault.
    var problems: [String]

    init(_ problems: [String]) { self.problems = problems }

    package var description: String { problems.joined(separator: "; ") }
}

extension FaultKind {
    /// The kind named `name`, ignoring case.
    init?(caseInsensitive name: String) {
        guard let kind = FaultKind.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else { return nil }
        self = kind
    }
}
