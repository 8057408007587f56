/// Where `${NAME}` in a scenario file takes its values: the command line's `-e NAME=VALUE` first, then the process
/// environment. The CLI fills it; the parser never reads the environment itself.
package struct ScenarioVariables: Sendable, Hashable {
    /// The process environment.
    package var environment: [String: String]
    /// `-e NAME=VALUE` from the command line, which wins over the environment.
    package var commandLine: [String: String]

    package init(environment: [String: String] = [:], commandLine: [String: String] = [:]) {
        self.environment = environment
        self.commandLine = commandLine
    }

    /// The value of `name` and where it came from, or nil when it is set nowhere.
    func value(of name: String) -> (value: String, source: VariableUse.Source)? {
        if let value = commandLine[name] { return (value, .commandLine) }
        if let value = environment[name] { return (value, .environment) }
        return nil
    }

    /// The words that make a variable's name look secret, upper case.
    static let secretWords = ["TOKEN", "PASSWORD", "KEY", "SECRET"]

    /// Whether a variable's value must never be written anywhere: its name contains TOKEN, PASSWORD, KEY or SECRET
    /// (in any case).
    static func looksSecret(_ name: String) -> Bool {
        let upper = name.uppercased()
        return secretWords.contains { upper.contains($0) }
    }
}

/// A variable a scenario file used, as the report records it: its name, where its value came from, and the value
/// itself only when it is no secret.
package struct VariableUse: Sendable, Codable, Hashable {
    /// Where a variable's value came from.
    package enum Source: String, Sendable, Codable, Hashable {
        /// `run -e NAME=VALUE`.
        case commandLine = "command line"
        /// The process environment.
        case environment
        /// The `${NAME:-default}` written in the file: the variable was unset or empty.
        case `default`
    }

    /// The variable's name, as `${NAME}` wrote it.
    package var name: String
    /// Where its value came from.
    package var source: Source
    /// The value used; nil for a secret: a name that looks secret (``ScenarioVariables/looksSecret(_:)``) or a
    /// variable that fills a credential field.
    package var value: String?

    package init(name: String, source: Source, value: String?) {
        self.name = name
        self.source = source
        self.value = value
    }

    /// `NAME=value (environment)`, or `NAME (environment, secret: not shown)`.
    package var summary: String {
        guard let value else { return "\(name) (\(source.rawValue), secret: value not shown)" }
        return "\(name)=\(value) (\(source.rawValue))"
    }
}
