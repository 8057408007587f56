import Yams

extension ScenarioParser {
    /// The file's scenarios, sweeps expanded: all of them, which thresholds and comparisons may name, and those that
    /// run (the ones `--scenario` names, or all), each selected one with the command line's overrides applied.
    static func readScenarios(
        _ top: Node.Mapping, root: Node, options: ScenarioParseOptions, _ reader: inout NodeReader
    ) -> (all: [ScenarioSpec], running: [ScenarioSpec]) {
        guard let scenariosNode = top["scenarios"] else {
            reader.issue(
                root, field: "scenarios", problem: "missing", fix: "add a `scenarios:` mapping of name → { executor, vus, iterations, batchSize }")
            return ([], [])
        }
        guard let entries = reader.namedMapping(scenariosNode, field: "scenarios") else { return ([], []) }
        if entries.isEmpty {
            reader.issue(
                scenariosNode, field: "scenarios", problem: "no scenarios are defined",
                fix: "add at least one, e.g. `scenarios: { single: { executor: shared-iterations, vus: 8, iterations: 100 } }`")
        }
        var scenarios: [ScenarioSpec] = []
        for (name, node) in entries {
            let overrides = options.overrides.selects(name) ? options.overrides : ScenarioOverrides()
            if let spec = readScenario(name: name, node, overrides: overrides, &reader) { scenarios.append(spec) }
        }
        checkStartAfter(scenarios, entries: entries, &reader)
        let running = selected(scenarios, entries: entries, chosen: options.overrides.scenarios, node: scenariosNode, &reader)
        // A sweep becomes its points; thresholds and comparisons name those.
        return (scenarios.expandingSweeps(), running.expandingSweeps())
    }

    /// The scenarios `--scenario` names (all when it names none). A name the file lacks is a problem, and so is a
    /// selected scenario that starts after one left out (it would wait for a scenario that never runs).
    static func selected(
        _ scenarios: [ScenarioSpec], entries: [(String, Node)], chosen: [String], node: Node, _ reader: inout NodeReader
    ) -> [ScenarioSpec] {
        guard !chosen.isEmpty else { return scenarios }
        let names = entries.map(\.0)
        for name in chosen where !names.contains(name) {
            let suggestion = closest(to: name, in: names).map { "did you mean `\($0)`? " } ?? ""
            reader.issue(
                node, field: "scenarios", problem: "--scenario \(name): the file has no scenario of that name",
                fix: "\(suggestion)use one of: \(names.joined(separator: ", "))")
        }
        let running = scenarios.filter { chosen.contains($0.name) }
        for spec in running {
            guard let after = spec.startAfter, !chosen.contains(after), names.contains(after) else { continue }
            let entry = entries.first { $0.0 == spec.name }?.1
            let afterNode: Node? = { if case .mapping(let map)? = entry { return map["startAfter"] } else { return entry } }()
            reader.issue(
                afterNode, field: "scenarios.\(spec.name).startAfter", problem: "starts after \(after), which --scenario leaves out",
                fix: "add `--scenario \(after)` too")
        }
        return running
    }

    /// k6's `--vus`, `--duration` and `--iterations` applied to one scenario's executor: each replaces the setting of
    /// that name, and is a problem for an executor that has no such setting.
    static func applying(
        _ overrides: ScenarioOverrides, to executor: ExecutorConfig, map: Node.Mapping, node: Node, path: String, _ reader: inout NodeReader
    ) -> ExecutorConfig {
        let owner = executor.owner
        let own = type(of: owner).keyNames
        for (key, value) in overrides.settings where !own.contains(key) {
            reader.issue(
                map["executor"] ?? node, field: "\(path).executor",
                problem: "--\(key) \(value) does not apply to executor \(executor.name), which has no `\(key)`\(type(of: owner).missingKeyHint(key)) "
                    + "(it takes \(own.joined(separator: ", ")))",
                fix: "leave out --\(key), or choose the scenarios it fits with --scenario NAME")
        }
        return owner.applying(overrides).executor
    }

    /// A sweep of VUs would replace `--vus` at every point: a problem, not a silent surprise.
    static func checkSweep(_ overrides: ScenarioOverrides, _ sweep: Sweep?, node: Node?, path: String, _ reader: inout NodeReader) {
        guard let sweep, sweep.parameter == .vus, let vus = overrides.vus else { return }
        reader.issue(
            node, field: "\(path).sweep.vus", problem: "sweeps vus, so --vus \(vus) would be replaced at every point",
            fix: "leave out --vus, or leave this scenario out with --scenario NAME")
    }

    /// Drops the comparisons and thresholds that only the scenarios `--scenario` left out could measure.
    /// - Returns: Notes for the report: what ran, what was left out, and each gate not evaluated.
    static func leavingOut(_ left: [ScenarioSpec], from plan: inout ScenarioPlan) -> [String] {
        let running = plan.scenarios
        let names = Set(running.map(\.name))
        var notes = [
            "--scenario ran \(running.filter { !$0.isWarmUp }.map(\.name).joined(separator: ", ")) and left out "
                + left.filter { !$0.isWarmUp }.map(\.name).joined(separator: ", ")
        ]
        plan.comparisons = plan.comparisons.filter { comparison in
            let kept = names.contains(comparison.baseline) && names.contains(comparison.candidate)
            if !kept { notes.append("compare \(comparison.candidate) vs \(comparison.baseline) not evaluated: --scenario left a side out") }
            return kept
        }
        plan.thresholds = plan.thresholds.filter { threshold in
            let kept = producible(threshold.metric, filter: threshold.filter, scenarios: running) == nil
            if !kept { notes.append("threshold \(threshold.key) not evaluated: only scenarios --scenario left out measure it") }
            return kept
        }
        return notes
    }
}
