import Yams

extension NodeReader {
    /// The fields whose values no report or log shows: the only ones a variable whose name looks secret may fill.
    static let secretFields: Set<String> = ["auth.token", "auth.username", "auth.password"]

    /// A scalar's text with `${NAME}`, `${NAME:-default}` and `$$` interpolated, each variable used recorded in
    /// ``variablesUsed``; nil for other nodes. A variable that is set nowhere and has no default is reported here
    /// with its name, and reads as empty text, which the typed reads do not report again (see
    /// ``issueUnlessReported(since:_:field:problem:fix:)``). Keys never pass through here: a variable is never
    /// expanded into a key.
    mutating func text(_ node: Node, field: String) -> String? {
        guard case .scalar(let scalar) = node else { return nil }
        guard scalar.string.contains("$") else { return scalar.string }
        let variables = self.variables
        switch Interpolation.expand(scalar.string, lookup: { variables.value(of: $0)?.value }) {
        case .success(let expansion):
            var leaks = false
            for use in expansion.uses {
                record(use)
                if ScenarioVariables.looksSecret(use.name) && !Self.secretFields.contains(field) {
                    leaks = true
                    issue(
                        node, field: field,
                        problem:
                            "uses ${\(use.name)}, whose name looks secret (it contains one of \(ScenarioVariables.secretWords.joined(separator: ", "))), "
                            + "in a value that reports show",
                        fix:
                            "use such variables only in \(Self.secretFields.sorted().joined(separator: ", ")); if the value is no secret, rename the variable"
                    )
                }
            }
            // Read as empty, so that no later message about the value can show it.
            return leaks ? "" : expansion.text
        case .failure(let missing):
            issue(
                node, field: field, problem: "environment variable \(missing.name) is not set",
                fix: "export \(missing.name)=… or pass `-e \(missing.name)=…` before running, or write `${\(missing.name):-default}`")
            return ""
        }
    }

    /// Records a variable's first use: where its value came from, and the value unless the name looks secret.
    private mutating func record(_ use: Interpolation.Use) {
        guard !variablesUsed.contains(where: { $0.name == use.name }) else { return }
        let source: VariableUse.Source = use.defaulted ? .default : variables.value(of: use.name)?.source ?? .environment
        let value = ScenarioVariables.looksSecret(use.name) ? nil : use.value
        variablesUsed.append(VariableUse(name: use.name, source: source, value: value))
    }

    /// Reports a problem unless one was reported for this value since `count` issues (an unset variable, say), so one
    /// mistake is told once.
    mutating func issueUnlessReported(since count: Int, _ node: Node?, field: String, problem: String, fix: String) {
        guard issues.count == count else { return }
        issue(node, field: field, problem: problem, fix: fix)
    }
}
