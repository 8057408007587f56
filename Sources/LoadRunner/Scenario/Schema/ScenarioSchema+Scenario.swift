extension ScenarioSchema {
    // A scenario and a mix entry, without the operations' keys and rules (``ScenarioSchema/document`` adds them from
    // each kind).

    static let scenarioDefinition: SchemaValue = [
        "title": "scenario",
        "description": "One scenario: an executor that schedules iterations, and the operation (`exec`) or weighted operations (`mix`) each iteration runs; without either, each iteration is an applyEdits of batchSize adds.",
        "type": "object",
        "required": ["executor"],
        "properties": [
            "executor": [
                "description": "How the scenario schedules iterations, with k6's names: shared-iterations, per-vu-iterations, constant-vus and ramping-vus run VUs that loop (a slower service gets fewer requests); constant-arrival-rate and ramping-arrival-rate start iterations on a clock whatever the latency; required.",
                "anyOf": [
                    [
                        "type": "string",
                        "enum": ["shared-iterations", "per-vu-iterations", "constant-vus", "ramping-vus", "constant-arrival-rate", "ramping-arrival-rate"],
                    ],
                    ["$ref": "#/$defs/env"],
                ],
                "examples": ["shared-iterations", "per-vu-iterations", "constant-vus", "ramping-vus", "constant-arrival-rate", "ramping-arrival-rate"],
            ],
            "startTime": [
                "description": "Wait this long after the run starts (or after the startAfter scenario ends) before starting; default 0s.",
                "$ref": "#/$defs/duration",
                "default": "0s",
                "examples": ["30s"],
            ],
            "startAfter": [
                "description": "Start only when the named other scenario has finished, then wait startTime; default none.",
                "$ref": "#/$defs/text",
                "minLength": 1,
                "examples": ["warmup"],
            ],
            "gracefulStop": [
                "description": "How long iterations still running when the schedule ends may go on before they are cancelled; default 30s.",
                "$ref": "#/$defs/duration",
                "default": "30s",
            ],
            "tags": ["$ref": "#/$defs/tags"],
            "retry": ["$ref": "#/$defs/retry"],
            "thinkTime": ["$ref": "#/$defs/thinkTime"],
            "setup": ["$ref": "#/$defs/setup"],
            "sweep": ["$ref": "#/$defs/sweep"],
            "exec": [
                "description": "The operation each iteration runs, with that operation's settings written beside it in the scenario; default applyEdits; use `mix` instead for a weighted blend of operations.",
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
                "description": "A weighted blend of operations instead of `exec`: each iteration runs one entry, drawn (seeded) in proportion to its weight, and each entry carries its own settings.",
                "type": "array",
                "minItems": 1,
                "items": ["$ref": "#/$defs/mixEntry"],
                "examples": [[["operation": "query", "weight": 3, "where": "1=1"], ["operation": "applyEdits", "name": "small-batches", "adds": 10, "weight": 1]]],
            ],
            "vus": [
                "description": "shared-iterations, per-vu-iterations, constant-vus: virtual users (concurrent connections) running iterations at once, 1 to 10,000; default 1.",
                "$ref": "#/$defs/integer",
                "minimum": 1,
                "maximum": 10000,
                "default": 1,
                "examples": [8],
            ],
            "iterations": [
                "description": "shared-iterations: iterations shared by all VUs, required; per-vu-iterations: iterations each VU runs, default 1; 1 to 100,000,000.",
                "$ref": "#/$defs/integer",
                "minimum": 1,
                "maximum": 100000000,
                "examples": [1000],
            ],
            "maxDuration": [
                "description": "shared-iterations, per-vu-iterations: no iteration starts after this long, even if some remain; default 10m.",
                "$ref": "#/$defs/positiveDuration",
                "default": "10m",
                "examples": ["5m"],
            ],
            "duration": [
                "description": "constant-vus, constant-arrival-rate: how long iterations keep starting; required.",
                "$ref": "#/$defs/positiveDuration",
                "examples": ["30s", "5m"],
            ],
            "startVUs": [
                "description": "ramping-vus: VUs running before the first stage, 0 to 10,000; default 1.",
                "$ref": "#/$defs/integer",
                "minimum": 0,
                "maximum": 10000,
                "default": 1,
                "examples": [0],
            ],
            "stages": ["$ref": "#/$defs/stages"],
            "gracefulRampDown": [
                "description": "ramping-vus: how long VUs above a falling target may finish their iteration before they are stopped; default 30s.",
                "$ref": "#/$defs/positiveDuration",
                "default": "30s",
            ],
            "rate": [
                "description": "constant-arrival-rate: iterations started per timeUnit, whatever the response time, 1 to 10,000,000; required.",
                "$ref": "#/$defs/integer",
                "minimum": 1,
                "maximum": 10000000,
                "examples": [100],
            ],
            "startRate": [
                "description": "ramping-arrival-rate: iterations started per timeUnit before the first stage, 0 to 10,000,000; default 0.",
                "$ref": "#/$defs/integer",
                "minimum": 0,
                "maximum": 10000000,
                "default": 0,
            ],
            "timeUnit": [
                "description": "constant-arrival-rate, ramping-arrival-rate: the period in which rate, startRate and stage targets count iterations; default 1s.",
                "$ref": "#/$defs/positiveDuration",
                "default": "1s",
                "examples": ["1s", "1m"],
            ],
            "preAllocatedVUs": [
                "description": "constant-arrival-rate, ramping-arrival-rate: VUs ready at the start to run iterations, 1 to 10,000; required.",
                "$ref": "#/$defs/integer",
                "minimum": 1,
                "maximum": 10000,
                "examples": [20],
            ],
            "maxVUs": [
                "description": "constant-arrival-rate, ramping-arrival-rate: most VUs the pool may grow to when iterations outpace it (an iteration that finds no free VU is dropped and counted), 1 to 10,000, at least preAllocatedVUs; default preAllocatedVUs.",
                "$ref": "#/$defs/integer",
                "minimum": 1,
                "maximum": 10000,
                "examples": [100],
            ],
        ],
        "additionalProperties": false,
        "allOf": [
            [
                "if": ["required": ["executor"], "properties": ["executor": ["const": "shared-iterations"]]],
                "then": ["$ref": "#/$defs/executorRules/shared-iterations"],
            ],
            [
                "if": ["required": ["executor"], "properties": ["executor": ["const": "per-vu-iterations"]]],
                "then": ["$ref": "#/$defs/executorRules/per-vu-iterations"],
            ],
            [
                "if": ["required": ["executor"], "properties": ["executor": ["const": "constant-vus"]]],
                "then": ["$ref": "#/$defs/executorRules/constant-vus"],
            ],
            [
                "if": ["required": ["executor"], "properties": ["executor": ["const": "ramping-vus"]]],
                "then": ["$ref": "#/$defs/executorRules/ramping-vus"],
            ],
            [
                "if": ["required": ["executor"], "properties": ["executor": ["const": "constant-arrival-rate"]]],
                "then": ["$ref": "#/$defs/executorRules/constant-arrival-rate"],
            ],
            [
                "if": ["required": ["executor"], "properties": ["executor": ["const": "ramping-arrival-rate"]]],
                "then": ["$ref": "#/$defs/executorRules/ramping-arrival-rate"],
            ],
            [
                "if": ["required": ["exec"]],
                "then": [
                    "properties": [
                        "operation": [
                            "description": "Not allowed beside `exec`.",
                            "not": [:],
                            "errorMessage": "`operation` is the version-1 spelling of `exec`: keep only `exec`",
                        ],
                    ],
                ],
            ],
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
