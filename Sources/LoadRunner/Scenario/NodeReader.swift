import Yams

/// Typed reads from a YAML node tree that record a positioned ``ScenarioIssue`` for every mismatch
/// instead of stopping at the first.
struct NodeReader {
    let file: String
    /// Values for `${NAME}` in values.
    let variables: ScenarioVariables
    private(set) var issues: [ScenarioIssue] = []
    /// The variables the file's values used, in order of first use (see ``NodeReader+Variables``).
    var variablesUsed: [VariableUse] = []
    /// The variables that fill a credential field (``credentialFields``): their values are never recorded or shown.
    var credentialVariables: Set<String> = []
    /// The first field each variable filled that reports show, to refuse a variable that also fills a credential.
    var shownVariableFields: [String: (node: Node, field: String)] = [:]

    init(file: String, variables: ScenarioVariables = ScenarioVariables()) {
        self.file = file
        self.variables = variables
    }

    mutating func issue(_ node: Node?, field: String, problem: String, fix: String) {
        let mark = node?.mark
        issues.append(ScenarioIssue(file: file, line: mark?.line, column: mark?.column, field: field, problem: problem, fix: fix))
    }

    /// A mapping whose keys must come from `allowed`; unknown keys are reported with a suggestion.
    mutating func mapping(_ node: Node, field: String, allowed: [String]) -> Node.Mapping? {
        guard case .mapping(let map) = node else {
            issue(
                node, field: field.isEmpty ? "(top level)" : field, problem: "expected a mapping of keys, got \(kind(node))",
                fix: "write `key: value` lines indented under it (keys: \(allowed.joined(separator: ", ")))")
            return nil
        }
        for (key, _) in map {
            let name = key.string ?? ""
            if !allowed.contains(name) {
                let path = field.isEmpty ? name : "\(field).\(name)"
                let suggestion = closest(to: name, in: allowed).map { "did you mean `\($0)`? " } ?? ""
                issue(
                    key, field: path, problem: "unknown key '\(name)'",
                    fix: "\(suggestion)known keys here: \(allowed.joined(separator: ", "))")
            }
        }
        return map
    }

    /// A mapping of user-chosen names to nodes, in file order.
    mutating func namedMapping(_ node: Node, field: String) -> [(String, Node)]? {
        guard case .mapping(let map) = node else {
            issue(
                node, field: field, problem: "expected a mapping of name → settings, got \(kind(node))",
                fix: "write each scenario as `name:` followed by its indented settings")
            return nil
        }
        var result: [(String, Node)] = []
        for (key, value) in map {
            guard let name = key.string, !name.isEmpty else {
                issue(key, field: field, problem: "a scenario name is empty", fix: "give each scenario a name")
                continue
            }
            result.append((name, value))
        }
        return result
    }

    mutating func sequence(_ node: Node, field: String) -> [Node] {
        guard case .sequence(let items) = node else {
            issue(node, field: field, problem: "expected a list, got \(kind(node))", fix: "write each entry on a line starting with `- `")
            return []
        }
        return Array(items)
    }

    mutating func string(_ node: Node?, field: String, required: Bool, parent: Node, example: String) -> String? {
        guard let node else {
            if required { issue(parent, field: field, problem: "missing", fix: "add `\(example)`") }
            return nil
        }
        let reported = issues.count
        guard let text = text(node, field: field), !text.isEmpty || !required else {
            issueUnlessReported(
                since: reported, node, field: field, problem: "expected text, got \(kind(node))",
                fix: example.isEmpty ? "write a single value" : "write e.g. `\(example)`")
            return nil
        }
        return text
    }

    mutating func int(
        _ node: Node?, field: String, range: ClosedRange<Int>, example: String, required: Bool = false, parent: Node? = nil
    ) -> Int? {
        guard let node else {
            if required { issue(parent, field: field, problem: "missing", fix: "add `\(example)`") }
            return nil
        }
        let bounds = range.upperBound == Int.max ? "≥ \(range.lowerBound)" : "\(range.lowerBound)…\(range.upperBound)"
        let reported = issues.count
        guard let text = text(node, field: field), let value = Int(text.replacingUnderscores()) else {
            issueUnlessReported(
                since: reported, node, field: field, problem: "expected a whole number, got \(describe(node))",
                fix: "write a whole number \(bounds), e.g. `\(example)`")
            return nil
        }
        guard range.contains(value) else {
            issue(node, field: field, problem: "must be \(bounds), got \(value)", fix: "write a value \(bounds), e.g. `\(example)`")
            return nil
        }
        return value
    }

    mutating func double(_ node: Node?, field: String, example: String) -> Double? {
        guard let node else { return nil }
        let reported = issues.count
        guard let text = text(node, field: field), let value = Double(text), value.isFinite, value > 0 else {
            issueUnlessReported(
                since: reported, node, field: field, problem: "expected a positive number, got \(describe(node))", fix: "write e.g. `\(example)`")
            return nil
        }
        return value
    }

    mutating func rate(_ node: Node?, field: String) -> Double? {
        guard let node else { return nil }
        let reported = issues.count
        guard let text = text(node, field: field), let value = Double(text), value >= 0, value <= 1 else {
            issueUnlessReported(
                since: reported, node, field: field, problem: "expected a fraction from 0 to 1, got \(describe(node))",
                fix: "write e.g. `\(field): 0.01` for 1 %")
            return nil
        }
        return value
    }

    mutating func bool(_ node: Node?, field: String) -> Bool? {
        guard let node else { return nil }
        let reported = issues.count
        guard let text = text(node, field: field) else {
            issueUnlessReported(
                since: reported, node, field: field, problem: "expected true or false, got \(kind(node))", fix: "write `true` or `false`")
            return nil
        }
        switch text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default:
            issueUnlessReported(
                since: reported, node, field: field, problem: "expected true or false, got \(describe(node))", fix: "write `true` or `false`")
            return nil
        }
    }

    mutating func duration(_ node: Node?, field: String, example: String, allowZero: Bool = false) -> Duration? {
        guard let node else { return nil }
        let reported = issues.count
        let read = text(node, field: field).map { text in Result { () throws(DurationText.Problem) in try DurationText.read(text) } }
        switch read {
        case .success(let value)? where value > .zero || (allowZero && value == .zero):
            return value
        case .failure(.tooLong)?:
            issue(
                node, field: field, problem: "\(describe(node)) is \(DurationText.Problem.tooLong)",
                fix: "write a duration of at most \(DurationText.format(DurationText.maximum)), e.g. `\(example)`")
        default:
            issueUnlessReported(
                since: reported, node, field: field, problem: "expected a duration with a unit, got \(describe(node))",
                fix: "write e.g. `\(example)` (units: ms, s, m, h; combined like 1m30s)")
        }
        return nil
    }

    func kind(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar): return "'\(scalar.string)'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    /// A scalar as written, with what it read as when a variable changed it and none is secret.
    func describe(_ node: Node) -> String {
        guard case .scalar(let scalar) = node, scalar.string.contains("${"),
            case .success(let expansion) = Interpolation.expand(scalar.string, lookup: { variables.value(of: $0)?.value }),
            !expansion.uses.contains(where: { isSecret($0.name) })
        else { return kind(node) }
        return "\(kind(node)) (read as '\(expansion.text)')"
    }
}

/// Parses and prints k6-style durations: `500ms`, `30s`, `2m`, `1h`, `1m30s`.
package enum DurationText {
    /// The longest duration read: 8760h (365 days). Longer ones are refused, not clamped, so a typo never runs for
    /// ages, and every duration read converts to nanoseconds, milliseconds or seconds without overflow.
    package static let maximum = Duration.seconds(365 * 24 * 3600)

    /// Why a text is not a duration that can be used.
    package enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// Not a number with a unit.
        case notADuration
        /// A duration longer than ``DurationText/maximum``.
        case tooLong

        package var description: String {
            switch self {
            case .notADuration: "not a duration with a unit (ms, s, m, h; combined like 1m30s)"
            case .tooLong: "longer than the longest duration featureload takes, \(DurationText.format(DurationText.maximum))"
            }
        }
    }

    /// The duration written in `text`, or nil when it is not one or is longer than ``maximum``.
    package static func parse(_ text: String) -> Duration? {
        try? read(text)
    }

    /// The duration written in `text`.
    /// - Throws: ``Problem/notADuration`` when it is not a number with a unit, ``Problem/tooLong`` when it is
    ///   longer than ``maximum``.
    package static func read(_ text: String) throws(Problem) -> Duration {
        // Milliseconds, summed in floating point: no part, however many digits it has, can overflow.
        var totalMilliseconds = 0.0
        var number = ""
        var unit = ""
        var sawPart = false
        func flush() -> Bool {
            guard let value = Double(number), value >= 0 else { return false }
            switch unit {
            case "ms": totalMilliseconds += value
            case "s": totalMilliseconds += value * 1000
            case "m": totalMilliseconds += value * 60_000
            case "h": totalMilliseconds += value * 3_600_000
            default: return false
            }
            number = ""
            unit = ""
            sawPart = true
            return true
        }
        for character in text.trimmingCharacters() {
            if character.isNumber || character == "." {
                if !unit.isEmpty { guard flush() else { throw .notADuration } }
                number.append(character)
            } else if character.isLetter {
                guard !number.isEmpty else { throw .notADuration }
                unit.append(character)
            } else {
                throw .notADuration
            }
        }
        guard !number.isEmpty, flush(), sawPart else { throw .notADuration }
        let maximumMilliseconds = Double(maximum.components.seconds) * 1000
        guard totalMilliseconds.rounded() <= maximumMilliseconds else { throw .tooLong }
        return .milliseconds(Int64(totalMilliseconds.rounded()))
    }

    /// `1m30s`-style text for a duration, to the millisecond.
    package static func format(_ duration: Duration) -> String {
        let totalMs = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if totalMs % 1000 != 0 { return "\(totalMs)ms" }
        var seconds = totalMs / 1000
        var text = ""
        if seconds >= 3600 {
            text += "\(seconds / 3600)h"
            seconds %= 3600
        }
        if seconds >= 60 {
            text += "\(seconds / 60)m"
            seconds %= 60
        }
        if seconds > 0 || text.isEmpty { text += "\(seconds)s" }
        return text
    }
}

/// The entry of `candidates` nearest to `word` by edit distance, if it is close enough to be a likely typo.
func closest(to word: String, in candidates: [String]) -> String? {
    let lowered = word.lowercased()
    var best: (String, Int)?
    for candidate in candidates {
        let distance = editDistance(lowered, candidate.lowercased())
        if distance <= max(2, candidate.count / 3), distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
    }
    return best?.0
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}

extension String {
    func trimmingCharacters() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }

    func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
}
