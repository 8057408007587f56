extension RunReport {
    /// How the run was told apart from its file as written, in words, for every rendering: the command line's
    /// overrides, the run's tags, and the variables the file used (values of secret-looking names never shown).
    /// Empty for a run of the file as written with no tags or variables.
    package var conditions: [(label: String, text: String)] {
        var rows: [(label: String, text: String)] = []
        if let overrides, !overrides.isEmpty { rows.append(("overrides", overrides.summary + " (not the file as written)")) }
        if let tags, !tags.isEmpty { rows.append(("tags", Self.tagsText(tags))) }
        if let variables, !variables.isEmpty { rows.append(("variables", variables.map(\.summary).joined(separator: ", "))) }
        return rows
    }

    /// `key=value, …` in key order.
    static func tagsText(_ tags: [String: String]) -> String {
        tags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
    }

    /// Where two runs' conditions differ, in words (`overrides: --vus 2 against none (the file as written)`), for
    /// a comparison: a difference in figures may come from a difference in what was run.
    static func conditionDifferences(baseline: RunReport, candidate: RunReport) -> [String] {
        var lines: [String] = []
        let asWritten = "none (the file as written)"
        let baseOverrides = baseline.overrides.flatMap { $0.isEmpty ? nil : $0 }
        let newOverrides = candidate.overrides.flatMap { $0.isEmpty ? nil : $0 }
        if baseOverrides != newOverrides {
            lines.append("overrides differ: baseline \(baseOverrides?.summary ?? asWritten), candidate \(newOverrides?.summary ?? asWritten)")
        }
        if (baseline.tags ?? [:]) != (candidate.tags ?? [:]) {
            let text = { (tags: [String: String]?) in tags.map { $0.isEmpty ? "none" : tagsText($0) } ?? "none" }
            lines.append("tags differ: baseline \(text(baseline.tags)), candidate \(text(candidate.tags))")
        }
        if (baseline.variables ?? []) != (candidate.variables ?? []) {
            let text = { (uses: [VariableUse]?) in (uses ?? []).isEmpty ? "none" : (uses ?? []).map(\.summary).joined(separator: ", ") }
            lines.append("variables differ: baseline \(text(baseline.variables)), candidate \(text(candidate.variables))")
        }
        return lines
    }
}
