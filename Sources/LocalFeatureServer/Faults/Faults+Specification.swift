import Foundation

extension FaultRule {
    /// A rule from a command-line specification `KIND:RATE[:key=value…][@operation]`, e.g. `http503:0.05`,
    /// `http429:0.02:retryAfter=3`, `stall:0.01:seconds=5@query`, `editFailure:0.001@applyEdits`,
    /// `truncatedResponse:0.1:path=*/FeatureServer/0/*`.
    /// - Throws: ``LocalFeatureServerError`` (``LocalFeatureServerError/isInvalidFaults``) naming the problem.
    package init(specification: String) throws(LocalFeatureServerError) {
        let (body, operation) = Self.splitOperation(specification)
        let parts = body.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let source = "--fault \(specification)"
        guard parts.count >= 2, let kind = FaultKind(caseInsensitive: parts[0]) else {
            throw .invalidFaults(
                source,
                problems: ["expected KIND:RATE with KIND one of \(FaultKind.allCases.map(\.rawValue).joined(separator: ", "))"])
        }
        guard let rate = Double(parts[1]), (0...1).contains(rate) else {
            throw .invalidFaults(source, problems: ["RATE must be a number 0…1, got '\(parts[1])'"])
        }
        self.init(kind: kind, rate: rate, scope: FaultScope(operation: operation))
        for option in parts.dropFirst(2) {
            let pair = option.split(separator: "=", maxSplits: 1).map(String.init)
            switch (pair.first?.lowercased(), pair.count == 2 ? pair[1] : nil) {
            case ("retryafter", let value?) where Int(value).map { $0 >= 0 } == true: retryAfterSeconds = Int(value)!
            case ("seconds", let value?) where Double(value).map { (0...3600).contains($0) } == true: stallSeconds = Double(value)!
            case ("path", let value?) where !value.isEmpty: scope.path = value
            default:
                throw .invalidFaults(source, problems: ["unknown or invalid option '\(option)' (retryAfter=SECONDS, seconds=SECONDS, path=PATTERN)"])
            }
        }
    }

    /// `text` split at its last `@` into the body and a non-empty operation.
    static func splitOperation(_ text: String) -> (String, String?) {
        guard let at = text.lastIndex(of: "@") else { return (text, nil) }
        let operation = String(text[text.index(after: at)...])
        return (String(text[..<at]), operation.isEmpty ? nil : operation)
    }
}

extension FaultLatency {
    /// Latency from a command-line specification in milliseconds: `fixed:50`, `uniform:10,100`, `normal:50,10`
    /// (mean, standard deviation) or `lognormal:20,0.5` (median, sigma), optionally scoped with `@operation`.
    /// - Throws: ``LocalFeatureServerError`` (``LocalFeatureServerError/isInvalidFaults``) naming the problem.
    package init(specification: String) throws(LocalFeatureServerError) {
        let (body, operation) = FaultRule.splitOperation(specification)
        let source = "--latency \(specification)"
        let parts = body.split(separator: ":", maxSplits: 1).map(String.init)
        let numbers = parts.count == 2 ? parts[1].split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) } : []
        guard parts.count == 2, !numbers.isEmpty, numbers.allSatisfy({ $0 != nil }) else {
            throw .invalidFaults(source, problems: ["expected fixed:MS, uniform:MIN,MAX, normal:MEAN,SD or lognormal:MEDIAN,SIGMA"])
        }
        let values = numbers.map { $0! }
        let distribution: LatencyDistribution
        switch (parts[0].lowercased(), values.count) {
        case ("fixed", 1): distribution = .fixed(milliseconds: values[0])
        case ("uniform", 2): distribution = .uniform(minimum: values[0], maximum: values[1])
        case ("normal", 2): distribution = .normal(mean: values[0], standardDeviation: values[1])
        case ("lognormal", 2): distribution = .logNormal(median: values[0], sigma: values[1])
        default:
            throw .invalidFaults(source, problems: ["expected fixed:MS, uniform:MIN,MAX, normal:MEAN,SD or lognormal:MEDIAN,SIGMA"])
        }
        self.init(distribution, scope: FaultScope(operation: operation))
        let problems = LocalFeatureServerConfiguration.Faults(latency: self).problems
        if !problems.isEmpty { throw .invalidFaults(source, problems: problems) }
    }
}

extension LocalFeatureServerConfiguration.Faults {
    /// Settings from a JSON file in the format of `POST /arcgis/admin/faults` (see ``parse(json:base:)``).
    /// - Throws: ``LocalFeatureServerError`` (``LocalFeatureServerError/isInvalidFaults``) naming the file and
    ///   every problem in it.
    package init(contentsOfFile path: String) throws(LocalFeatureServerError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .invalidFaults(path, problems: ["cannot read the file: \(error.localizedDescription)"])
        }
        switch Self.parse(json: text) {
        case .success(let faults): self = faults
        case .failure(let failure): throw .invalidFaults(path, problems: failure.problems)
        }
    }

    /// Checks the settings as a whole (e.g. after combining flags).
    /// - Throws: ``LocalFeatureServerError`` (``LocalFeatureServerError/isInvalidFaults``) listing every problem.
    package func validate(source: String) throws(LocalFeatureServerError) {
        let problems = self.problems
        if !problems.isEmpty { throw .invalidFaults(source, problems: problems) }
    }
}
