extension ScenarioSchema {
    // A scenario and a mix entry, without the executors' and the operations' keys and rules (``ScenarioSchema/document``
    // adds them from each kind).

    static let scenarioDefinition: SchemaValue = [
        "title": "scenario",
        "description":
            "One scenario: an executor that schedules iterations, and the operation (`exec`) or weighted operations (`mix`) each iteration runs; without either, each iteration is an applyEdits of batchSize adds.",
        "type": "object",
        "required": ["executor"],
        "properties": [
            "executor": [
                "description":
                    "How the scenario schedules iterations, with k6's names: shared-iterations, per-vu-iterations, constant-vus and ramping-vus run VUs that loop (a slower service gets fewer requests); constant-arrival-rate and ramping-arrival-rate start iterations on a clock whatever the latency; required.",
                "anyOf": [["type": "string", "enum": []], ["$ref": "#/$defs/env"]],
                "examples": [],
            ],
            "startTime": ScenarioKey.startTime.schema,
            "startAfter": ScenarioKey.startAfter.schema,
            "gracefulStop": ScenarioKey.gracefulStop.schema,
            "tags": ["$ref": "#/$defs/tags"],
            "retry": ["$ref": "#/$defs/retry"],
            "thinkTime": ["$ref": "#/$defs/thinkTime"],
            "setup": ["$ref": "#/$defs/setup"],
            "sweep": ["$ref": "#/$defs/sweep"],
            "exec": [
                "description":
                    "The operation each iteration runs, with that operation's settings written beside it in the scenario; default applyEdits; use `mix` instead for a weighted blend of operations.",
                "anyOf": [["type": "string", "enum": []], ["$ref": "#/$defs/env"]],
                "default": "applyEdits",
                "examples": [],
            ],
            "operation": [
                "description": "Version-1 spelling of `exec: applyEdits`: only `operation: add` is accepted; write `exec:` for anything else.",
                "anyOf": [["const": "add"], ["$ref": "#/$defs/env"]],
                "examples": ["add"],
            ],
            "mix": [
                "description":
                    "A weighted blend of operations instead of `exec`: each iteration runs one entry, drawn (seeded) in proportion to its weight, and each entry carries its own settings.",
                "type": "array",
                "minItems": 1,
                "items": ["$ref": "#/$defs/mixEntry"],
                "examples": [
                    [
                        ["operation": "query", "weight": 3, "where": "1=1"],
                        ["operation": "applyEdits", "name": "small-batches", "adds": 10, "weight": 1],
                    ]
                ],
            ],
        ],
        "additionalProperties": false,
        "allOf": [
            [
                "if": ["required": ["exec"]],
                "then": [
                    "properties": [
                        "operation": [
                            "description": "Not allowed beside `exec`.",
                            "not": [:],
                            "errorMessage": "`operation` is the version-1 spelling of `exec`: keep only `exec`",
                        ]
                    ]
                ],
            ]
        ],
    ]

    static let mixEntryDefinition: SchemaValue = [
        "title": "mix entry",
        "description": "One operation of a mix, with its weight and its own settings.",
        "type": "object",
        "required": ["operation"],
        "properties": [
            "operation": [
                "description": "The operation this entry runs; required.",
                "anyOf": [["type": "string", "enum": []], ["$ref": "#/$defs/env"]],
                "examples": [],
            ],
            "name": ScenarioKey.mixEntryName.schema,
            "weight": ScenarioKey.weight.schema,
        ],
        "additionalProperties": false,
        "allOf": [],
    ]
}
