import Foundation
import Yams

extension ScenarioParser {
    /// Every key of an operation: `layer`, then each kind's own keys, in the order the kinds list them.
    static let operationKeys: [String] = {
        var keys = ["layer"]
        for kind in OperationKind.allCases {
            for key in kind.settingsType.keys where !keys.contains(key.name) { keys.append(key.name) }
        }
        return keys
    }()
    static let mixKeys = ["operation", "name", "weight"] + operationKeys

    /// `exec: NAME` (or version 1's `operation: add`) with the operation's settings beside it, or `mix:` a list.
    static func readWorkload(_ map: Node.Mapping, node: Node, path: String, _ reader: inout NodeReader) -> [OperationSpec]? {
        let kinds = OperationSpec.Kind.allCases.map(\.rawValue)
        if let mixNode = map["mix"] {
            if map["exec"] != nil || map["operation"] != nil {
                reader.issue(mixNode, field: "\(path).mix", problem: "a scenario has either `exec` or `mix`", fix: "keep one of them")
            }
            for key in operationKeys where map[key] != nil && key != "layer" {
                reader.issue(
                    map[key], field: "\(path).\(key)", problem: "goes inside each mix entry",
                    fix: "move it under the entry of the operation it is for")
            }
            let defaultLayer = ScenarioKey.layer.read(map, path: path, &reader)
            var operations: [OperationSpec] = []
            var labels: Set<String> = []
            for (index, item) in reader.sequence(mixNode, field: "\(path).mix").enumerated() {
                let field = "\(path).mix[\(index)]"
                guard let entry = reader.mapping(item, field: field, allowed: mixKeys) else { continue }
                guard
                    let kindText = reader.string(
                        entry["operation"], field: "\(field).operation", required: true, parent: item, example: "operation: query")
                else { continue }
                guard let kind = OperationSpec.Kind(rawValue: kindText) else {
                    let suggestion = closest(to: kindText, in: kinds).map { "did you mean `\($0)`? " } ?? ""
                    reader.issue(
                        entry["operation"], field: "\(field).operation", problem: "unknown operation '\(kindText)'",
                        fix: "\(suggestion)use one of: \(kinds.joined(separator: ", "))")
                    continue
                }
                let label = ScenarioKey.mixEntryName.read(entry, path: field, &reader) ?? kindText
                if !labels.insert(label).inserted {
                    reader.issue(
                        item, field: "\(field).name", problem: "two mix entries are both called '\(label)'", fix: "give one of them `name: <label>`")
                }
                var spec = readOperation(kind, label: label, entry, node: item, path: field, defaultLayer: defaultLayer, &reader)
                spec.weight = ScenarioKey.weight.read(entry, path: field, &reader)
                operations.append(spec)
            }
            if operations.isEmpty && reader.issues.isEmpty {
                reader.issue(mixNode, field: "\(path).mix", problem: "no operations", fix: "list entries like `- { operation: query, weight: 2 }`")
            }
            return operations.isEmpty ? nil : operations
        }
        var kind = OperationSpec.Kind.applyEdits
        if let execNode = map["exec"] {
            if map["operation"] != nil {
                reader.issue(
                    map["operation"], field: "\(path).operation", problem: "`operation` is the version-1 spelling of `exec`", fix: "keep only `exec`")
            }
            if let text = reader.string(execNode, field: "\(path).exec", required: true, parent: node, example: "exec: applyEdits") {
                guard let known = OperationSpec.Kind(rawValue: text) else {
                    let suggestion = closest(to: text, in: kinds).map { "did you mean `\($0)`? " } ?? ""
                    reader.issue(
                        execNode, field: "\(path).exec", problem: "unknown operation '\(text)'",
                        fix: "\(suggestion)use one of: \(kinds.joined(separator: ", "))")
                    return nil
                }
                kind = known
            }
        } else if let operationNode = map["operation"],
            let text = reader.string(operationNode, field: "\(path).operation", required: false, parent: node, example: "")
        {
            if text != "add" {
                let suggestion =
                    OperationSpec.Kind(rawValue: text).map { _ in "write `exec: \(text)`" }
                    ?? "use `exec:` with one of: \(kinds.joined(separator: ", "))"
                reader.issue(operationNode, field: "\(path).operation", problem: "unknown operation '\(text)'", fix: suggestion)
                return nil
            }
        }
        return [readOperation(kind, label: kind.rawValue, map, node: node, path: path, defaultLayer: 0, &reader)]
    }

    private static func readOperation(
        _ kind: OperationSpec.Kind, label: String, _ map: Node.Mapping, node: Node, path: String, defaultLayer: Int, _ reader: inout NodeReader
    ) -> OperationSpec {
        let owner = kind.settingsType
        let own = Set(owner.keyNames)
        for (key, _) in map {
            let name = key.string ?? ""
            if operationKeys.contains(name) && !own.contains(name) {
                reader.issue(
                    key, field: "\(path).\(name)", problem: "does not apply to \(kind.rawValue)",
                    fix: "\(kind.rawValue) takes \(own.sorted().joined(separator: ", "))")
            }
        }
        let input = MappingInput(map: map, node: node, path: path)
        let layer = input.has(ScenarioKey.layer.name) ? input.read(.layer, &reader) : defaultLayer
        return OperationSpec(owner.read(input, &reader).settings, label: label, layer: layer)
    }

    /// `64KB`, `{ min: 10KB, max: 2MB }`.
    static func readSize(_ node: Node, field: String, _ reader: inout NodeReader) -> OperationSpec.SizeRange? {
        if case .mapping = node {
            guard let map = reader.mapping(node, field: field, allowed: ["min", "max"]) else { return nil }
            guard let low = map["min"].flatMap({ readBytes($0, field: "\(field).min", &reader) }),
                let high = map["max"].flatMap({ readBytes($0, field: "\(field).max", &reader) })
            else {
                reader.issue(node, field: field, problem: "needs min and max", fix: "write `size: { min: 10KB, max: 2MB }`")
                return nil
            }
            if high < low { reader.issue(map["max"], field: "\(field).max", problem: "is below min", fix: "make max at least min") }
            return OperationSpec.SizeRange(low, high)
        }
        return readBytes(node, field: field, &reader).map { OperationSpec.SizeRange($0) }
    }

    /// A byte count: `512`, `64KB`, `10MB`, `1GB` (powers of 1024).
    static func readBytes(_ node: Node, field: String, _ reader: inout NodeReader) -> Int64? {
        let reported = reader.issues.count
        guard let text = reader.text(node, field: field) else {
            reader.issue(node, field: field, problem: "expected a size, got \(reader.kind(node))", fix: "write e.g. `64KB` or `10MB`")
            return nil
        }
        let upper = text.uppercased().replacingOccurrences(of: " ", with: "")
        let units: [(String, Int64)] = [("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10), ("B", 1)]
        var multiplier: Int64 = 1
        var digits = upper
        for (suffix, factor) in units where upper.hasSuffix(suffix) {
            multiplier = factor
            digits = String(upper.dropLast(suffix.count))
            break
        }
        guard let value = Int64(digits), value > 0, value <= (1 << 40) / multiplier else {
            reader.issueUnlessReported(
                since: reported, node, field: field, problem: "\(reader.describe(node)) is not a size",
                fix: "write a whole number of bytes with KB, MB or GB, e.g. `64KB`")
            return nil
        }
        return value * multiplier
    }
}
