import Foundation
import LoadRunner
import Testing

/// The generated schema and the parser agree: every shipped scenario, every scenario text written out in the tests,
/// and a set of deliberately wrong snippets go through both, and each is accepted by both or refused by both. The
/// schema is checked with a real JSON Schema validator (python3's jsonschema, through `scripts/check-scenarios`).
///
/// The parser checks what no schema can (names that must refer to scenarios, unset environment variables, min ≤ max,
/// the plan's shape per executor); a text the parser refuses only for those may pass the schema.
@Suite(.serialized, .enabled(if: PythonValidator.available, "needs python3 with jsonschema and pyyaml (pip install jsonschema pyyaml)"))
struct ScenarioSchemaAgreementTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// One scenario text and where it comes from.
    struct Document: Sendable, CustomStringConvertible {
        let origin: String
        let text: String
        var description: String { origin }
    }

    /// Refusals only the parser can make: the schema sees one file's shape, not what its names refer to, the
    /// environment it runs in or how values relate to each other.
    static let parserOnly = [
        "environment variable", "no scenario is named", "is below min", "compares '", "both called", "sweeps ", "sweep exactly one",
        "lists a value twice", "lists no values", "startAfter", "is not a scenario", "no operation", "is set by featureload",
        "needs a time-based executor", "maxVUs", "must be at least", "is less than", "cannot be longer", "not be before",
        "is longer than the longest duration",
    ]

    /// What the schema checks that the parser leaves to the command line: the embedded service's fault and latency
    /// settings, which `featureload validate` and `run` read with the server's own parser.
    static let checkedByTheCommandLine = ["$.local.faults", "$.local.latency"]

    /// Deliberately wrong snippets, each with the field both must refuse (and the key the schema names, where the two
    /// point at different keys of the same conflict).
    static let wrong: [(label: String, scenario: String, field: String, schemaField: String?)] = [
        ("a key of another kind", "executor: shared-iterations\nexec: addFeatures\nwhere: 1=1", "where", nil),
        ("a key no kind takes", "executor: shared-iterations\nexec: query\nwher: 1=1", "wher", nil),
        (
            "a mix entry's key of another kind", "executor: shared-iterations\nmix:\n  - { operation: query, invalidRate: 0.1 }",
            "mix[0].invalidRate", nil
        ),
        ("an applyEdits key beside the default applyEdits' counts", "executor: shared-iterations\nbatchSize: 5\nadds: 2", "batchSize", "adds"),
        ("an applyEdits without edits", "executor: shared-iterations\nexec: applyEdits\nadds: 0", "adds", nil),
        ("an operation setting beside mix", "executor: shared-iterations\nchildren: 2\nmix:\n  - { operation: query }", "children", nil),
        ("exec beside mix", "executor: shared-iterations\nexec: query\nmix:\n  - { operation: query }", "mix", "exec"),
        ("version 1's operation beside exec", "executor: shared-iterations\nexec: query\noperation: add", "operation", nil),
        ("an unknown operation", "executor: shared-iterations\nexec: qurey", "exec", nil),
        ("an unknown mix operation", "executor: shared-iterations\nmix:\n  - { operation: deleteFeature }", "mix[0].operation", nil),
        ("a mix entry without its operation", "executor: shared-iterations\nmix:\n  - { weight: 2 }", "mix[0].operation", nil),
        ("relate without its relationship", "executor: shared-iterations\nexec: relate", "relationship", nil),
        ("deepInsert without its relationship", "executor: shared-iterations\nexec: deepInsert\nchildren: 1", "relationship", nil),
        ("a text for a count", "executor: shared-iterations\nexec: addFeatures\nbatchSize: many", "batchSize", nil),
        ("a count out of range", "executor: shared-iterations\nexec: deleteFeatures\nbatchSize: 0", "batchSize", nil),
        ("a list for outFields", "executor: shared-iterations\nexec: query\noutFields: [a, b]", "outFields", nil),
        ("a word for a flag", "executor: shared-iterations\nexec: queryAttachments\ndownload: sometimes", "download", nil),
        ("a fraction above 1", "executor: shared-iterations\nexec: addFeatures\ninvalidRate: 1.5", "invalidRate", nil),
        ("an envelope of 0", "executor: shared-iterations\nexec: query\nenvelope: 0", "envelope", nil),
        ("counts and ids only at once", "executor: shared-iterations\nexec: query\nreturnCountOnly: true\nreturnIdsOnly: true", "returnIdsOnly", nil),
        ("an unknown relate action", "executor: shared-iterations\nexec: relate\nrelationship: 0\naction: link", "action", nil),
        ("a size without a unit it knows", "executor: shared-iterations\nexec: addAttachment\nsize: 3 parsecs", "size", nil),
        ("a layer id out of range", "executor: shared-iterations\nexec: query\nlayer: -1", "layer", nil),
        ("version 1's operation with another kind", "executor: shared-iterations\noperation: query", "operation", nil),
    ]

    /// The schema's problems with each wrong snippet, from one run of the validator for all of them.
    static let wrongVerdicts: [[String]]? = try? schemaVerdicts(wrong.map { wrongDocument($0.scenario) })

    static func wrongDocument(_ scenario: String) -> String {
        "version: 2\nname: wrong\ntarget: local\nscenarios:\n  s:\n    iterations: 1\n"
            + scenario.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n") + "\n"
    }

    @Test("the parser and the generated schema accept and refuse the same scenario files")
    func agree() throws {
        let documents = try Self.corpus()
        #expect(documents.count >= 30, "\(documents.count) documents")
        let verdicts = try Self.schemaVerdicts(documents.map(\.text))
        for (index, document) in documents.enumerated() {
            let schemaProblems = verdicts[index]
            let parserIssues: [ScenarioIssue]
            do {
                _ = try ScenarioParser.parse(yaml: document.text, file: "agree.yaml")
                parserIssues = []
            } catch {
                parserIssues = error.issues
            }
            if parserIssues.isEmpty {
                let refused = schemaProblems.filter { problem in !Self.checkedByTheCommandLine.contains { problem.hasPrefix($0) } }
                let message = "\(document): the parser takes it, the schema refuses it: \(refused)"
                #expect(refused.isEmpty, Comment(rawValue: message))
            } else if schemaProblems.isEmpty {
                let missed = parserIssues.filter { issue in !Self.parserOnly.contains { issue.problem.contains($0) || issue.fix.contains($0) } }
                let message = "\(document): the parser refuses it, the schema takes it: \(missed.map(\.description))"
                #expect(missed.isEmpty, Comment(rawValue: message))
            }
        }
    }

    @Test("both refuse each deliberately wrong snippet, at the same field", arguments: wrong.indices)
    func refuseTheSame(_ index: Int) throws {
        let (label, scenario, field, schemaField) = Self.wrong[index]
        let text = Self.wrongDocument(scenario)
        let parserFields: [String]
        do {
            _ = try ScenarioParser.parse(yaml: text, file: "wrong.yaml")
            parserFields = []
        } catch {
            parserFields = error.issues.map(\.field)
        }
        let parserMessage = "\(label): the parser's fields \(parserFields)"
        #expect(parserFields.contains("scenarios.s.\(field)"), Comment(rawValue: parserMessage))
        let verdicts = try #require(Self.wrongVerdicts, "scripts/check-scenarios did not run")
        let schemaProblems = verdicts[index]
        // The schema names the key, or for a rule over the whole mapping (a key missing, counts that add up to
        // nothing) the mapping that holds it.
        let key = schemaField ?? field
        let path = "$.scenarios.s." + key
        let holder = key.contains("mix[") ? "$.scenarios.s.mix[0]" : "$.scenarios.s"
        let name = String(key.split(separator: ".").last ?? "")
        let schemaMessage = "\(label): the schema's problems \(schemaProblems)"
        #expect(
            schemaProblems.contains { $0.hasPrefix(path + ":") || ($0.hasPrefix(holder + ":") && $0.contains(name)) },
            Comment(rawValue: schemaMessage))
    }
}

extension ScenarioSchemaAgreementTests {
    /// The shipped scenarios, and every scenario text the tests write out literally (without interpolation).
    static func corpus() throws -> [Document] {
        var documents: [Document] = []
        let scenarios = root.appendingPathComponent("Scenarios")
        for name in try FileManager.default.contentsOfDirectory(atPath: scenarios.path).sorted() where name.hasSuffix(".yaml") {
            documents.append(
                Document(origin: "Scenarios/\(name)", text: try String(contentsOf: scenarios.appendingPathComponent(name), encoding: .utf8)))
        }
        let tests = root.appendingPathComponent("Tests")
        let files = FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted() ?? []
        for file in files {
            let source = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            for (line, text) in literals(in: source) where text.contains("scenarios:") || text.contains("executor:") {
                documents.append(Document(origin: "Tests/\(file):\(line)", text: text))
            }
        }
        return documents
    }

    /// The multi-line string literals of a Swift source without interpolation, dedented as Swift reads them, with the
    /// line each starts on.
    static func literals(in source: String) -> [(Int, String)] {
        let lines = source.components(separatedBy: "\n")
        var result: [(Int, String)] = []
        var start: Int?
        var body: [String] = []
        for (number, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let opened = start {
                if trimmed.hasPrefix("\"\"\"") {
                    let indent = line.prefix { $0 == " " }.count
                    let text = body.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }.joined(separator: "\n")
                    if !text.contains("\\(") { result.append((opened + 1, unescape(text) + "\n")) }
                    start = nil
                    body = []
                } else {
                    body.append(line)
                }
            } else if line.hasSuffix("\"\"\"") && !line.hasSuffix("#\"\"\"") && !trimmed.hasPrefix("\"\"\"") || trimmed == "\"\"\"" {
                start = number
            }
        }
        return result
    }

    static func unescape(_ text: String) -> String {
        var out = ""
        var escaped = false
        for character in text {
            if escaped {
                switch character {
                case "n": out.append("\n")
                case "t": out.append("\t")
                default: out.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// The schema's problems with each text (`JSON path: message`; none when it passes), from `scripts/check-scenarios`
    /// run against the schema `featureload schema` prints.
    static func schemaVerdicts(_ texts: [String]) throws -> [[String]] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-agreement-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = directory.appendingPathComponent("scenario.schema.json")
        try ScenarioSchema.json.write(to: schema, atomically: true, encoding: .utf8)
        let paths = texts.indices.map { directory.appendingPathComponent("\($0).yaml").path }
        for (text, path) in zip(texts, paths) { try text.write(toFile: path, atomically: true, encoding: .utf8) }
        let result = try PythonValidator.run(
            ["bash", root.appendingPathComponent("scripts/check-scenarios").path] + paths, environment: ["SCENARIO_SCHEMA": schema.path])
        var problems = [[String]](repeating: [], count: texts.count)
        var seen = Set<Int>()
        for line in result.output.split(separator: "\n").map(String.init) {
            for (index, path) in paths.enumerated() {
                if line == "ok \(path)" { seen.insert(index) }
                if line.hasPrefix(path + ": ") {
                    problems[index].append(String(line.dropFirst(path.count + 2)))
                    seen.insert(index)
                }
            }
        }
        let message = "scripts/check-scenarios did not report every file: \(result.output)"
        try #require(seen.count == texts.count, Comment(rawValue: message))
        return problems
    }
}

/// python3 with jsonschema and pyyaml, which `scripts/check-scenarios` runs on.
enum PythonValidator {
    static var available: Bool {
        (try? run(["python3", "-c", "import jsonschema, yaml"]).status) == 0
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = ScenarioSchemaAgreementTests.root
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
