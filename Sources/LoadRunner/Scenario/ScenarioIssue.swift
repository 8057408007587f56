/// One problem in a scenario file: where it is, which field, what is wrong and how to fix it.
package struct ScenarioIssue: Sendable, Hashable, CustomStringConvertible {
    /// The scenario file's path as given.
    package var file: String
    /// 1-based line, or nil when the problem is about the whole file.
    package var line: Int?
    /// 1-based column.
    package var column: Int?
    /// The field's path, e.g. `scenarios.batched.batchSize`.
    package var field: String
    /// What is wrong.
    package var problem: String
    /// What to write instead.
    package var fix: String

    package init(file: String, line: Int?, column: Int?, field: String, problem: String, fix: String) {
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.problem = problem
        self.fix = fix
    }

    package var description: String {
        var location = file
        if let line {
            location += ":\(line)"
            if let column { location += ":\(column)" }
        }
        let subject = field.isEmpty ? "" : "\(field): "
        return "\(location): \(subject)\(problem). Fix: \(fix)"
    }
}

/// A scenario file that could not be used, with every problem found in it.
package struct ScenarioFileError: Error, Sendable, CustomStringConvertible {
    package var file: String
    package var issues: [ScenarioIssue]

    package init(file: String, issues: [ScenarioIssue]) {
        self.file = file
        self.issues = issues
    }

    package var description: String {
        let noun = issues.count == 1 ? "problem" : "problems"
        return "\(file): \(issues.count) \(noun)\n" + issues.map { "  " + $0.description }.joined(separator: "\n")
    }
}
