/// What `run` changes in a scenario file from the command line, as k6 has it: `--vus`, `--duration` and
/// `--iterations` replace the setting of that name in every selected scenario whose executor has it (and are a
/// validation error for one that has not), and `--scenario NAME` runs only the named scenarios.
///
/// The executors that take each: `vus` shared-iterations, per-vu-iterations, constant-vus; `iterations`
/// shared-iterations, per-vu-iterations; `duration` constant-vus, constant-arrival-rate. ramping-vus and
/// ramping-arrival-rate take none (their stages set VUs or rates and length); the arrival-rate executors have no
/// `vus`, only a pool of VUs sized for their rate.
///
/// The report records the overrides, so a re-render or a compare shows that a run was not the file as written.
package struct ScenarioOverrides: Sendable, Hashable, Codable {
    /// `--vus`: the VUs of shared-iterations, per-vu-iterations and constant-vus.
    package var vus: Int?
    /// `--duration`: the duration of constant-vus and constant-arrival-rate.
    package var duration: Duration?
    /// `--iterations`: the iterations of shared-iterations, and per VU of per-vu-iterations.
    package var iterations: Int?
    /// The scenarios that run, by their names in the file; empty runs all of them.
    package var scenarios: [String] = []

    package init(vus: Int? = nil, duration: Duration? = nil, iterations: Int? = nil, scenarios: [String] = []) {
        self.vus = vus
        self.duration = duration
        self.iterations = iterations
        self.scenarios = scenarios
    }

    /// Whether nothing is overridden.
    package var isEmpty: Bool { vus == nil && duration == nil && iterations == nil && scenarios.isEmpty }

    /// Whether the scenario named `name` (in the file) runs.
    package func selects(_ name: String) -> Bool { scenarios.isEmpty || scenarios.contains(name) }

    /// The executor settings given, by their names in scenario files, with their values as options take them.
    package var settings: [(key: String, value: String)] {
        var result: [(key: String, value: String)] = []
        if let vus { result.append(("vus", String(vus))) }
        if let duration { result.append(("duration", DurationText.format(duration))) }
        if let iterations { result.append(("iterations", String(iterations))) }
        return result
    }

    /// The overrides as the options that give them: `--vus 2 --duration 5s --scenario steady`.
    package var summary: String {
        (settings.map { "--\($0.key) \($0.value)" } + scenarios.map { "--scenario \($0)" }).joined(separator: " ")
    }

    private enum CodingKeys: String, CodingKey {
        case vus, duration, iterations, scenarios
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        vus = try container.decodeIfPresent(Int.self, forKey: .vus)
        iterations = try container.decodeIfPresent(Int.self, forKey: .iterations)
        scenarios = try container.decodeIfPresent([String].self, forKey: .scenarios) ?? []
        if let text = try container.decodeIfPresent(String.self, forKey: .duration) {
            guard let value = DurationText.parse(text) else {
                throw DecodingError.dataCorruptedError(forKey: .duration, in: container, debugDescription: "'\(text)' is not a duration")
            }
            duration = value
        }
    }

    /// Durations are written as options take them (`5s`, `1m30s`).
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(vus, forKey: .vus)
        try container.encodeIfPresent(duration.map(DurationText.format), forKey: .duration)
        try container.encodeIfPresent(iterations, forKey: .iterations)
        if !scenarios.isEmpty { try container.encode(scenarios, forKey: .scenarios) }
    }
}

/// What the command line adds to a scenario file when it is read: values for its `${NAME}` variables, k6's overrides
/// and scenario selection, and the tags of the run.
package struct ScenarioParseOptions: Sendable, Hashable {
    /// Where `${NAME}` takes its values: `-e NAME=VALUE`, then the process environment.
    package var variables: ScenarioVariables
    /// `--vus`, `--duration`, `--iterations` and `--scenario`.
    package var overrides: ScenarioOverrides
    /// Tags added to every metric of the run (`run --tag key=value`); a scenario's own tag of the same name wins.
    package var tags: [String: String]

    package init(variables: ScenarioVariables = ScenarioVariables(), overrides: ScenarioOverrides = ScenarioOverrides(), tags: [String: String] = [:])
    {
        self.variables = variables
        self.overrides = overrides
        self.tags = tags
    }
}
