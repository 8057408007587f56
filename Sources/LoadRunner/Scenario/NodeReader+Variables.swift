import Yams

extension NodeReader {
    /// The fields that hold a credential. Whatever fills one is a secret, whatever its variable's name: its value is
    /// never recorded or shown, the variable may fill no field that reports show, and `${NAME:-default}` is refused
    /// there (the default would be a credential written in the file). A new credential key joins this list.
    static let credentialFields: Set<String> = ["auth.token", "auth.password"]

    /// The fields a variable whose name looks secret may fill: the credentials and the user name beside them.
    static let secretFields: Set<String> = credentialFields.union(["auth.username"])

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
                if Self.credentialFields.contains(field) {
                    fillsCredential(use, node: node, field: field)
                } else {
                    leaks = fillsShownField(use, node: node, field: field) || leaks
                }
                record(use)
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

    /// Marks `use`'s variable as a credential: refuses a default written in the file, and a use of the same variable
    /// in a field that reports show, wherever in the file that is.
    private mutating func fillsCredential(_ use: Interpolation.Use, node: Node, field: String) {
        credentialVariables.insert(use.name)
        if use.writesDefault {
            issue(
                node, field: field, problem: "gives ${\(use.name)} a default, which would be a credential written in the file as plain text",
                fix: "write `${\(use.name)}` and export \(use.name) in the environment (or pass `-e \(use.name)=…`)")
        }
        if let shown = shownVariableFields[use.name] {
            issue(
                shown.node, field: shown.field, problem: "uses ${\(use.name)}, which also fills \(field), in a value that reports show",
                fix: "give \(field) a variable of its own")
        }
    }

    /// Checks a variable that fills a field reports show. Returns whether the value must not be read, because the
    /// variable is (or looks) secret.
    private mutating func fillsShownField(_ use: Interpolation.Use, node: Node, field: String) -> Bool {
        if shownVariableFields[use.name] == nil { shownVariableFields[use.name] = (node, field) }
        if credentialVariables.contains(use.name) {
            issue(
                node, field: field,
                problem:
                    "uses ${\(use.name)}, which fills a credential (\(Self.credentialFields.sorted().joined(separator: ", "))), in a value that reports show",
                fix: "give this field a variable of its own")
            return true
        }
        guard ScenarioVariables.looksSecret(use.name) && !Self.secretFields.contains(field) else { return false }
        issue(
            node, field: field,
            problem:
                "uses ${\(use.name)}, whose name looks secret (it contains one of \(ScenarioVariables.secretWords.joined(separator: ", "))), "
                + "in a value that reports show",
            fix: "use such variables only in \(Self.secretFields.sorted().joined(separator: ", ")); if the value is no secret, rename the variable")
        return true
    }

    /// Records a variable's first use: where its value came from, and the value unless it is secret (by its name, or
    /// because it fills a credential field anywhere in the file, before or after this use).
    private mutating func record(_ use: Interpolation.Use) {
        let secret = isSecret(use.name)
        if let index = variablesUsed.firstIndex(where: { $0.name == use.name }) {
            if secret { variablesUsed[index].value = nil }
            return
        }
        let source: VariableUse.Source = use.defaulted ? .default : variables.value(of: use.name)?.source ?? .environment
        variablesUsed.append(VariableUse(name: use.name, source: source, value: secret ? nil : use.value))
    }

    /// Whether a variable's value must never be shown: its name looks secret, or it fills a credential field.
    func isSecret(_ name: String) -> Bool {
        ScenarioVariables.looksSecret(name) || credentialVariables.contains(name)
    }

    /// Reports a problem unless one was reported for this value since `count` issues (an unset variable, say), so one
    /// mistake is told once.
    mutating func issueUnlessReported(since count: Int, _ node: Node?, field: String, problem: String, fix: String) {
        guard issues.count == count else { return }
        issue(node, field: field, problem: problem, fix: fix)
    }
}
