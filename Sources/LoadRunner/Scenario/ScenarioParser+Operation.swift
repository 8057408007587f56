import Foundation
import Yams

extension ScenarioParser {
    static let operationKeys = [
        "layer", "batchSize", "adds", "updates", "deletes", "rollbackOnFailure", "clientGlobalIds", "where", "outFields", "returnGeometry",
        "returnCountOnly", "returnIdsOnly", "envelope", "pageSize", "relationship", "size", "contentType", "uploadThreshold", "download",
        "action", "validate", "children", "attachments", "invalidRate",
    ]
    static let mixKeys = ["operation", "name", "weight"] + operationKeys

    /// The keys each operation takes (besides `layer`).
    static let keysByKind: [OperationSpec.Kind: [String]] = [
        .applyEdits: ["batchSize", "adds", "updates", "deletes", "rollbackOnFailure", "clientGlobalIds", "invalidRate"],
        .addFeatures: ["batchSize", "rollbackOnFailure", "clientGlobalIds", "invalidRate"],
        .updateFeatures: ["batchSize", "rollbackOnFailure"],
        .deleteFeatures: ["batchSize", "rollbackOnFailure"],
        .query: ["where", "outFields", "returnGeometry", "returnCountOnly", "returnIdsOnly", "envelope", "pageSize"],
        .queryRelatedRecords: ["relationship", "batchSize", "outFields", "returnGeometry", "pageSize"],
        .addAttachment: ["size", "contentType", "uploadThreshold"],
        .queryAttachments: ["batchSize", "download"],
        .relate: ["relationship", "action", "validate", "rollbackOnFailure"],
        .deepInsert: ["relationship", "children", "attachments", "size", "contentType", "uploadThreshold", "rollbackOnFailure"],
    ]

    /// `exec: NAME` (or version 1's `operation: add`) with the operation's settings beside it, or `mix:` a list.
    static func readWorkload(_ map: Node.Mapping, node: Node, path: String, _ reader: inout NodeReader) -> [OperationSpec]? {
        let kinds = OperationSpec.Kind.allCases.map(\.rawValue)
        if let mixNode = map["mix"] {
            if map["exec"] != nil || map["operation"] != nil {
                reader.issue(mixNode, field: "\(path).mix", problem: "a scenario has either `exec` or `mix`", fix: "keep one of them")
            }
            for key in operationKeys where map[key] != nil && key != "layer" {
                reader.issue(map[key], field: "\(path).\(key)", problem: "goes inside each mix entry", fix: "move it under the entry of the operation it is for")
            }
            let defaultLayer = reader.int(map["layer"], field: "\(path).layer", range: 0...100_000, example: "layer: 0") ?? 0
            var operations: [OperationSpec] = []
            var labels: Set<String> = []
            for (index, item) in reader.sequence(mixNode, field: "\(path).mix").enumerated() {
                let field = "\(path).mix[\(index)]"
                guard let entry = reader.mapping(item, field: field, allowed: mixKeys) else { continue }
                guard let kindText = reader.string(entry["operation"], field: "\(field).operation", required: true, parent: item, example: "operation: query")
                else { continue }
                guard let kind = OperationSpec.Kind(rawValue: kindText) else {
                    let suggestion = closest(to: kindText, in: kinds).map { "did you mean `\($0)`? " } ?? ""
                    reader.issue(entry["operation"], field: "\(field).operation", problem: "unknown operation '\(kindText)'", fix: "\(suggestion)use one of: \(kinds.joined(separator: ", "))")
                    continue
                }
                let label = reader.string(entry["name"], field: "\(field).name", required: false, parent: item, example: "name: small-batches") ?? kindText
                if !labels.insert(label).inserted {
                    reader.issue(item, field: "\(field).name", problem: "two mix entries are both called '\(label)'", fix: "give one of them `name: <label>`")
                }
                var spec = readOperation(kind, label: label, entry, node: item, path: field, defaultLayer: defaultLayer, &reader)
                spec.weight = reader.int(entry["weight"], field: "\(field).weight", range: 1...1_000_000, example: "weight: 3") ?? 1
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
                reader.issue(map["operation"], field: "\(path).operation", problem: "`operation` is the version-1 spelling of `exec`", fix: "keep only `exec`")
            }
            if let text = reader.string(execNode, field: "\(path).exec", required: true, parent: node, example: "exec: applyEdits") {
                guard let known = OperationSpec.Kind(rawValue: text) else {
                    let suggestion = closest(to: text, in: kinds).map { "did you mean `\($0)`? " } ?? ""
                    reader.issue(execNode, field: "\(path).exec", problem: "unknown operation '\(text)'", fix: "\(suggestion)use one of: \(kinds.joined(separator: ", "))")
                    return nil
                }
                kind = known
            }
        } else if let operationNode = map["operation"],
            let text = reader.string(operationNode, field: "\(path).operation", required: false, parent: node, example: "")
        {
            if text != "add" {
                let suggestion = OperationSpec.Kind(rawValue: text).map { _ in "write `exec: \(text)`" } ?? "use `exec:` with one of: \(kinds.joined(separator: ", "))"
                reader.issue(operationNode, field: "\(path).operation", problem: "unknown operation '\(text)'", fix: suggestion)
                return nil
            }
        }
        return [readOperation(kind, label: kind.rawValue, map, node: node, path: path, defaultLayer: 0, &reader)]
    }

    private static func readOperation(
        _ kind: OperationSpec.Kind, label: String, _ map: Node.Mapping, node: Node, path: String, defaultLayer: Int, _ reader: inout NodeReader
    ) -> OperationSpec {
        let own = Set(keysByKind[kind] ?? []).union(["layer"])
        for (key, _) in map {
            let name = key.string ?? ""
            if operationKeys.contains(name) && !own.contains(name) {
                reader.issue(key, field: "\(path).\(name)", problem: "does not apply to \(kind.rawValue)", fix: "\(kind.rawValue) takes \(own.sorted().joined(separator: ", "))")
            }
        }
        var spec = OperationSpec(kind: kind, label: label)
        func int(_ key: String, _ range: ClosedRange<Int>, _ example: String) -> Int? {
            reader.int(map[key], field: "\(path).\(key)", range: range, example: example)
        }
        func bool(_ key: String) -> Bool? { reader.bool(map[key], field: "\(path).\(key)") }
        spec.layer = int("layer", 0...100_000, "layer: 0") ?? defaultLayer
        spec.batchSize = int("batchSize", 1...10_000, "batchSize: 100") ?? 1
        spec.rollbackOnFailure = bool("rollbackOnFailure") ?? true
        spec.clientGlobalIds = bool("clientGlobalIds") ?? false
        if kind == .applyEdits {
            spec.adds = int("adds", 0...10_000, "adds: 100") ?? 0
            spec.updates = int("updates", 0...10_000, "updates: 10") ?? 0
            spec.deletes = int("deletes", 0...10_000, "deletes: 10") ?? 0
            if map["adds"] == nil && map["updates"] == nil && map["deletes"] == nil { spec.adds = spec.batchSize }
            if map["batchSize"] != nil && (map["adds"] != nil || map["updates"] != nil || map["deletes"] != nil) {
                reader.issue(map["batchSize"], field: "\(path).batchSize", problem: "is the number of adds when adds, updates and deletes are not given", fix: "remove batchSize, or the adds/updates/deletes counts")
            }
            if spec.adds + spec.updates + spec.deletes == 0 {
                reader.issue(node, field: "\(path).adds", problem: "an applyEdits with no edits", fix: "give adds, updates or deletes a count above 0")
            }
        }
        spec.whereClause = reader.string(map["where"], field: "\(path).where", required: false, parent: node, example: "where: \"1=1\"") ?? "1=1"
        if let fields = reader.string(map["outFields"], field: "\(path).outFields", required: false, parent: node, example: "outFields: \"*\"") {
            spec.outFields = fields.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        spec.returnGeometry = bool("returnGeometry") ?? true
        spec.returnCountOnly = bool("returnCountOnly") ?? false
        spec.returnIdsOnly = bool("returnIdsOnly") ?? false
        if spec.returnCountOnly && spec.returnIdsOnly {
            reader.issue(map["returnIdsOnly"], field: "\(path).returnIdsOnly", problem: "cannot go with returnCountOnly", fix: "keep one of them")
        }
        if let envelope = map["envelope"] {
            let value = reader.rate(envelope, field: "\(path).envelope")
            if value == 0 { reader.issue(envelope, field: "\(path).envelope", problem: "must be above 0", fix: "write the share of the extent, e.g. `envelope: 0.1`") }
            spec.envelope = value
        }
        spec.pageSize = int("pageSize", 1...100_000, "pageSize: 1000")
        spec.relationship = int("relationship", 0...100_000, "relationship: 0")
        if let sizeNode = map["size"] { spec.attachmentSize = readSize(sizeNode, field: "\(path).size", &reader) ?? spec.attachmentSize }
        spec.contentType = reader.string(map["contentType"], field: "\(path).contentType", required: false, parent: node, example: "contentType: image/png") ?? spec.contentType
        if let node = map["uploadThreshold"] {
            spec.uploadThreshold = readBytes(node, field: "\(path).uploadThreshold", &reader) ?? spec.uploadThreshold
        }
        spec.download = bool("download") ?? false
        if let actionText = reader.string(map["action"], field: "\(path).action", required: false, parent: node, example: "action: relate") {
            if let action = OperationSpec.RelateAction(rawValue: actionText) {
                spec.relateAction = action
            } else {
                let actions = OperationSpec.RelateAction.allCases.map(\.rawValue)
                let suggestion = closest(to: actionText, in: actions).map { "did you mean `\($0)`? " } ?? ""
                reader.issue(map["action"], field: "\(path).action", problem: "unknown action '\(actionText)'", fix: "\(suggestion)use one of: \(actions.joined(separator: ", "))")
            }
        }
        spec.validate = bool("validate") ?? true
        spec.invalidRate = map["invalidRate"].flatMap { reader.rate($0, field: "\(path).invalidRate") } ?? 0
        spec.children = int("children", 0...1_000, "children: 3") ?? 2
        spec.attachments = int("attachments", 0...100, "attachments: 1") ?? 0
        if (kind == .relate || kind == .deepInsert) && map["relationship"] == nil {
            reader.issue(node, field: "\(path).relationship", problem: "\(kind.rawValue) needs the relationship to work through", fix: "add e.g. `relationship: 0` (the layer's relationships are listed at …/FeatureServer/<layer>)")
        }
        return spec
    }

    /// `64KB`, `{ min: 10KB, max: 2MB }`.
    private static func readSize(_ node: Node, field: String, _ reader: inout NodeReader) -> OperationSpec.SizeRange? {
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
            reader.issue(node, field: field, problem: "'\(text)' is not a size", fix: "write a whole number of bytes with KB, MB or GB, e.g. `64KB`")
            return nil
        }
        return value * multiplier
    }
}
