import Foundation
import Testing

@testable import LoadRunner

/// Every scenario key's schema fragment against what the parser really does with the key: its range (the schema's
/// bounds accepted, one step past them refused) and its default (leaving the key out reads the same plan as writing
/// the schema's default). The keys are read through the whole parser, each in the executor or operation that takes
/// it, so a reader that bypassed its declaration (a range or default of its own) fails here.
@Suite struct ScenarioKeyTests {
    /// One key in the context that takes it.
    struct Case: Sendable, CustomStringConvertible {
        let key: any ScenarioKeyDeclaration
        /// What takes it: `exec: query`, `executor: constant-vus`, `setup`…
        let context: String
        /// The scenario's lines around the key, given the key's own line; nil leaves the key out.
        let document: @Sendable (_ keyLine: String?) -> String
        /// The field path the parser reports the key's problems at.
        let field: String
        /// Whether the context cannot do without the key (its default then never applies).
        var required = false
        var description: String { "\(context): \(key.name)" }
    }

    static let executorNames = ExecutorKind.allCases.map(\.rawValue)

    /// Required keys filled with their lowest accepted value (or their first example), so that the key under test is
    /// the only thing that can be wrong.
    static func requiredLines(_ owner: any ExecutorKindSettings.Type, except name: String) -> [String] {
        owner.keys.filter { owner.requiredKeys.contains($0.name) && $0.name != name }.map { key in
            if let minimum = key.schema["minimum"], case .integer(let value) = minimum { return "\(key.name): \(value)" }
            return key.example
        }
    }

    /// A scenario file with `top` as one more line at its top level.
    static func fileScenario(_ lines: [String], top: String?) -> String {
        scenario(lines) + (top.map { $0 + "\n" } ?? "")
    }

    static func scenario(_ lines: [String]) -> String {
        "version: 2\nname: keys\ntarget: local\nscenarios:\n  s:\n" + lines.map { "    " + $0 }.joined(separator: "\n") + "\n"
    }

    static let cases: [Case] = {
        var cases: [Case] = []
        for kind in ExecutorKind.allCases {
            let owner = kind.settingsType
            for key in owner.keys {
                let base = ["executor: \(kind.rawValue)", "exec: query"] + requiredLines(owner, except: key.name)
                cases.append(
                    Case(
                        key: key, context: "executor \(kind.rawValue)", document: { scenario(base + [$0].compactMap { $0 }) },
                        field: "scenarios.s.\(key.name)",
                        required: owner.requiredKeys.contains(key.name)))
            }
        }
        for kind in OperationKind.allCases {
            let owner = kind.settingsType
            for key in [ScenarioKey.layer] + owner.keys {
                var base = ["executor: shared-iterations", "iterations: 1", "exec: \(kind.rawValue)"]
                if owner.requiredKeys.contains("relationship") && key.name != "relationship" { base.append("relationship: 0") }
                // applyEdits: its counts go together, batchSize goes alone.
                if kind == .applyEdits && ["adds", "updates", "deletes"].contains(key.name) {
                    base.append(key.name == "adds" ? "updates: 1" : "adds: 1")
                }
                let lines = base
                cases.append(
                    Case(
                        key: key, context: "exec: \(kind.rawValue)", document: { scenario(lines + [$0].compactMap { $0 }) },
                        field: "scenarios.s.\(key.name)"))
            }
        }
        let plain = ["executor: shared-iterations", "iterations: 1", "exec: query"]
        for key in [ScenarioKey.startTime, ScenarioKey.gracefulStop, ScenarioKey.startAfter] as [any ScenarioKeyDeclaration]
        where key.name != "startAfter" {
            cases.append(
                Case(key: key, context: "scenario", document: { scenario(plain + [$0].compactMap { $0 }) }, field: "scenarios.s.\(key.name)"))
        }
        for (container, keys) in [("setup", setupKeys), ("retry", retrySettingKeys)] {
            for key in keys {
                cases.append(
                    Case(
                        key: key, context: container,
                        document: { line in scenario(plain + (line.map { ["\(container):", "  " + $0] } ?? ["\(container): {}"])) },
                        field: "scenarios.s.\(container).\(key.name)"))
            }
        }
        for key in fileKeys where key.name != "version" {
            cases.append(Case(key: key, context: "file", document: { line in fileScenario(plain, top: line) }, field: key.name))
        }
        for key in localServiceKeys {
            // A local service setting left out is the service's own default, not the key's: only the range is the key's.
            cases.append(
                Case(
                    key: key, context: "local", document: { line in fileScenario(plain, top: line.map { "local: { \($0) }" }) },
                    field: "local.\(key.name)", required: true))
        }
        cases.append(
            Case(
                key: ScenarioKey.stageTarget, context: "stage",
                document: { line in scenario(["executor: ramping-vus", "exec: query", "stages:", "  - duration: 1s", line.map { "    " + $0 } ?? ""])
                },
                field: "scenarios.s.stages[0].target", required: true))
        for key in [ScenarioKey.weight] as [any ScenarioKeyDeclaration] {
            let lines = ["executor: shared-iterations", "iterations: 1", "mix:", "  - operation: query"]
            cases.append(
                Case(
                    key: key, context: "mix entry", document: { scenario(lines + [$0].compactMap { $0.map { "    " + $0 } }) },
                    field: "scenarios.s.mix[0].\(key.name)"))
        }
        return cases
    }()

    /// The problems the parser reports at `field`, and the plan when there are none at all.
    static func parse(_ text: String, field: String) -> (problems: [String], plan: ScenarioPlan?) {
        do {
            return ([], try ScenarioParser.parse(yaml: text, file: "keys.yaml"))
        } catch {
            return (error.issues.filter { $0.field == field }.map(\.description), nil)
        }
    }

    /// A bound of the fragment, or of the value type it refers to.
    static func bound(_ name: String, of schema: SchemaValue) -> Int? {
        if case .integer(let value)? = schema[name] { return value }
        guard case .string(let ref)? = schema["$ref"], ref.hasPrefix("#/$defs/") else { return nil }
        let definition = ScenarioSchema.document[path: ["$defs", String(ref.dropFirst("#/$defs/".count))]]
        if case .integer(let value)? = definition?[name] { return value }
        return nil
    }

    @Test("every key is tested: each executor's and operation kind's keys, the scenario's, setup's, retry's and a mix entry's")
    func everyKeyIsCovered() {
        let covered = Set(Self.cases.map(\.key.name))
        let declared =
            ExecutorKind.allKeys.map(\.name) + OperationKind.allCases.flatMap { $0.settingsType.keys.map(\.name) } + ["layer"]
            + setupKeys.map(\.name) + retrySettingKeys.map(\.name) + ["startTime", "gracefulStop", "weight", "target"]
            + fileKeys.map(\.name).filter { $0 != "version" } + localServiceKeys.map(\.name)
        #expect(Set(declared).subtracting(covered).isEmpty)
        #expect(Self.cases.count > 60, "\(Self.cases.count) cases")
    }

    @Test("the parser accepts a key's bounds from its schema fragment and refuses one step past them", arguments: cases)
    func rangeAgrees(_ test: Case) {
        let schema = test.key.schema
        let name = test.key.name
        func problems(_ value: String) -> [String] { Self.parse(test.document("\(name): \(value)"), field: test.field).problems }
        func problems(_ value: Int) -> [String] { problems("\(value)") }
        let exclusive = Self.bound("exclusiveMinimum", of: schema)
        if let minimum = Self.bound("minimum", of: schema), minimum != exclusive {
            #expect(problems(minimum).isEmpty, "\(test) at its schema minimum \(minimum)")
            #expect(!problems(minimum - 1).isEmpty, "\(test) one below its schema minimum \(minimum)")
        }
        if let maximum = Self.bound("maximum", of: schema) {
            #expect(problems(maximum).isEmpty, "\(test) at its schema maximum \(maximum)")
            let above = maximum == .max ? "9223372036854775808" : "\(maximum + 1)"
            #expect(!problems(above).isEmpty, "\(test) one above its schema maximum \(maximum)")
        }
        if let exclusive {
            #expect(!problems(exclusive).isEmpty, "\(test) at its schema's exclusive minimum \(exclusive)")
        }
    }

    @Test("leaving a key out reads the same plan as writing its schema default", arguments: cases)
    func defaultAgrees(_ test: Case) throws {
        guard !test.required else { return }
        guard let value = test.key.schema["default"] else {
            #expect(test.key.renderedDefault == nil, "\(test): the schema gives no default, the reader has one")
            return
        }
        let written: String
        switch value {
        case .string(let text): written = KeyValueType<String>.yamlText(text)
        case .integer(let number): written = "\(number)"
        case .number(let number): written = "\(number)"
        case .bool(let flag): written = "\(flag)"
        default:
            Issue.record("\(test): a default the test cannot write, \(value)")
            return
        }
        let explicit = Self.parse(test.document("\(test.key.name): \(written)"), field: test.field)
        let absent = Self.parse(test.document(nil), field: test.field)
        let explicitPlan = try #require(explicit.plan, "\(test): writing the schema default \(written) is refused: \(explicit.problems)")
        let absentPlan = try #require(absent.plan, "\(test): leaving the key out is refused")
        #expect(explicitPlan.scenarios == absentPlan.scenarios, "\(test): the default \(written) reads another plan than leaving it out")
    }

    @Test("an executor's required keys are reported when left out, and only those", arguments: ExecutorKind.allCases)
    func requiredKeys(_ kind: ExecutorKind) {
        let owner = kind.settingsType
        let lines = ["executor: \(kind.rawValue)", "exec: query"]
        var text = Self.scenario(lines)
        var missing: Set<String> = []
        do { _ = try ScenarioParser.parse(yaml: text, file: "keys.yaml") } catch {
            missing = Set(error.issues.filter { $0.problem == "missing" }.map { String($0.field.split(separator: ".").last ?? "") })
        }
        #expect(missing == Set(owner.requiredKeys), "\(kind.rawValue)")
        text = Self.scenario(lines + Self.requiredLines(owner, except: ""))
        #expect((try? ScenarioParser.parse(yaml: text, file: "keys.yaml")) != nil, "\(kind.rawValue) with its required keys")
    }
}
