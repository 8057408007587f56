/// The JSON Schema (draft 2020-12) of scenario files, for editors: `featureload schema > scenario.schema.json`.
///
/// Generated from the parser's own definitions: each operation kind's keys (with their descriptions, ranges and
/// defaults), rules and required keys come from its ``OperationKindSettings`` type, so the schema cannot list a key
/// the parser refuses or miss one it takes. `Scenarios/schema/scenario.schema.json` is this document as printed; a
/// test keeps the two equal.
package enum ScenarioSchema {
    /// The schema document as JSON text, two spaces per level.
    package static let json: String = document.printed()

    /// The schema document: the hand-written parts (top level, executors, thresholds, value types) with each
    /// operation kind's part added.
    package static var document: SchemaValue {
        var schema = topLevel
        var definitions = SchemaValue.object(baseDefinitions)
        let kinds = OperationKind.allCases
        let names = SchemaValue.array(kinds.map { .string($0.rawValue) })
        // Every key an operation takes, with its schema: where editors complete and describe them.
        var keys: [SchemaValue.Member] = []
        for kind in kinds {
            for key in kind.settingsType.keys where !keys.contains(where: { $0.key == key.name }) { keys.append(.init(key.name, key.schema)) }
        }
        let properties = [SchemaValue.Member(ScenarioKey.layer.name, ScenarioKey.layer.schema)] + keys
        definitions["operationKey"] = [
            "description": "A key of some operation's settings (besides `layer`, which every operation takes).",
            "enum": .array(keys.map { .string($0.key) }),
        ]
        definitions["operation"] = .object(kinds.map { .init($0.rawValue, rules(of: $0.settingsType)) })

        var scenario = definitions["scenario"] ?? [:]
        addExecutors(to: &scenario, &definitions)
        scenario[path: ["properties", "exec", "anyOf"]] = [["type": "string", "enum": names], ["$ref": "#/$defs/env"]]
        scenario[path: ["properties", "exec", "examples"]] = names
        for property in properties { scenario[path: ["properties", property.key]] = property.value }
        scenario["allOf"] = .array((scenario["allOf"].flatMap(\.arrayValue) ?? []) + scenarioRules(kinds))
        definitions["scenario"] = scenario

        var entry = definitions["mixEntry"] ?? [:]
        entry[path: ["properties", "operation", "anyOf"]] = [["type": "string", "enum": names], ["$ref": "#/$defs/env"]]
        entry[path: ["properties", "operation", "examples"]] = names
        for property in properties { entry[path: ["properties", property.key]] = property.value }
        entry["allOf"] = .array(
            kinds.map { kind in ["if": chosen("operation", kind), "then": ["$ref": .string("#/$defs/operation/\(kind.rawValue)")]] })
        definitions["mixEntry"] = entry

        schema["$defs"] = definitions
        return schema
    }

    /// The executors' part: the `executor` names, each executor's keys (after the scenario's own, before the
    /// operations'), and for each executor the rules that apply when the scenario names it.
    static func addExecutors(to scenario: inout SchemaValue, _ definitions: inout SchemaValue) {
        let kinds = ExecutorKind.allCases
        let names = SchemaValue.array(kinds.map { .string($0.rawValue) })
        scenario[path: ["properties", "executor", "anyOf"]] = [["type": "string", "enum": names], ["$ref": "#/$defs/env"]]
        scenario[path: ["properties", "executor", "examples"]] = names
        for key in ExecutorKind.allKeys { scenario[path: ["properties", key.name]] = key.schema }
        let choices: [SchemaValue] = kinds.map { kind in
            ["if": chosen("executor", kind.rawValue), "then": ["$ref": .string("#/$defs/executorRules/\(kind.rawValue)")]]
        }
        scenario["allOf"] = .array(choices + (scenario["allOf"].flatMap(\.arrayValue) ?? []))
        definitions["notForExecutor"] = .object(
            kinds.map { kind in
                let own = kind.settingsType.keyNames.sorted().joined(separator: ", ")
                return .init(
                    kind.rawValue,
                    [
                        "description": .string("Not a setting of executor \(kind.rawValue)."),
                        "not": [:],
                        "errorMessage": .string("does not apply to executor \(kind.rawValue), which takes \(own)"),
                    ])
            })
        definitions["executorRules"] = .object(kinds.map { .init($0.rawValue, rules(of: $0.settingsType)) })
    }

    /// An executor's rules: the executors' keys it does not take refused, its own rules, its required keys.
    static func rules(of owner: any ExecutorKindSettings.Type) -> SchemaValue {
        let own = Set(owner.keyNames)
        let refused = ExecutorKind.allKeys.filter { !own.contains($0.name) }.map {
            SchemaValue.Member($0.name, ["$ref": .string("#/$defs/notForExecutor/\(owner.kind.rawValue)")])
        }
        var members = [SchemaValue.Member("properties", .object(refused + owner.schemaPropertyRules))]
        if !owner.requiredKeys.isEmpty { members.append(.init("required", .array(owner.requiredKeys.map { .string($0) }))) }
        return .object(members + owner.schemaRules)
    }

    /// A kind's rules: of the operations' keys, only its own (and `layer`); its required keys; its own rules.
    static func rules(of owner: any OperationKindSettings.Type) -> SchemaValue {
        let own = owner.keyNames
        var rules: SchemaValue = [
            "description": .string(owner.summary),
            "propertyNames": [
                "anyOf": [["not": ["$ref": "#/$defs/operationKey"]], ["enum": .array(own.map { .string($0) })]],
                "errorMessage": .string("does not apply to \(owner.kind.rawValue), which takes \(own.sorted().joined(separator: ", "))"),
            ],
        ]
        if !owner.requiredKeys.isEmpty { rules["required"] = .array(owner.requiredKeys.map { .string($0) }) }
        if !owner.schemaRules.isEmpty { rules["allOf"] = .array(owner.schemaRules) }
        return rules
    }

    /// `if` the mapping names `kind` under `key`.
    static func chosen(_ key: String, _ kind: OperationKind) -> SchemaValue { chosen(key, kind.rawValue) }

    /// `if` the mapping names `name` under `key`.
    static func chosen(_ key: String, _ name: String) -> SchemaValue {
        ["required": [.string(key)], "properties": .object([.init(key, ["const": .string(name)])])]
    }

    /// A scenario's operation rules: settings beside `mix` go in its entries; `exec` names the kind whose rules apply
    /// (applyEdits when neither `exec` nor `mix` is given).
    static func scenarioRules(_ kinds: [OperationKind]) -> [SchemaValue] {
        let beside: SchemaValue = [
            "description": "Not allowed beside `mix`.", "not": [:], "errorMessage": "a scenario has either `exec` or `mix`: keep one of them",
        ]
        var rules: [SchemaValue] = [
            [
                "if": ["required": ["mix"]],
                "then": [
                    "properties": ["exec": beside, "operation": beside],
                    "propertyNames": [
                        "not": ["$ref": "#/$defs/operationKey"],
                        "errorMessage": "this setting goes inside each mix entry: move it under the entry of the operation it is for",
                    ],
                ],
            ],
            ["if": ["not": ["anyOf": [["required": ["mix"]], ["required": ["exec"]]]]], "then": ["$ref": "#/$defs/operation/applyEdits"]],
        ]
        rules += kinds.map { kind in ["if": chosen("exec", kind), "then": ["$ref": .string("#/$defs/operation/\(kind.rawValue)")]] }
        return rules
    }
}

extension SchemaValue {
    /// The elements of an array; nil for other values.
    var arrayValue: [SchemaValue]? {
        guard case .array(let items) = self else { return nil }
        return items
    }
}
