extension ScenarioSchema {
    // Which executor takes which keys.

    static let notForExecutorDefinition: SchemaValue = [
        "shared-iterations": [
            "description": "Not a setting of executor shared-iterations.",
            "not": [:],
            "errorMessage": "does not apply to executor shared-iterations, which takes iterations, maxDuration, vus",
        ],
        "per-vu-iterations": [
            "description": "Not a setting of executor per-vu-iterations.",
            "not": [:],
            "errorMessage": "does not apply to executor per-vu-iterations, which takes iterations, maxDuration, vus",
        ],
        "constant-vus": [
            "description": "Not a setting of executor constant-vus.",
            "not": [:],
            "errorMessage": "does not apply to executor constant-vus, which takes duration, vus",
        ],
        "ramping-vus": [
            "description": "Not a setting of executor ramping-vus.",
            "not": [:],
            "errorMessage": "does not apply to executor ramping-vus, which takes gracefulRampDown, stages, startVUs",
        ],
        "constant-arrival-rate": [
            "description": "Not a setting of executor constant-arrival-rate.",
            "not": [:],
            "errorMessage": "does not apply to executor constant-arrival-rate, which takes duration, maxVUs, preAllocatedVUs, rate, timeUnit",
        ],
        "ramping-arrival-rate": [
            "description": "Not a setting of executor ramping-arrival-rate.",
            "not": [:],
            "errorMessage": "does not apply to executor ramping-arrival-rate, which takes maxVUs, preAllocatedVUs, stages, startRate, timeUnit",
        ],
    ]

    static let executorRulesDefinition: SchemaValue = [
        "shared-iterations": [
            "properties": [
                "duration": ["$ref": "#/$defs/notForExecutor/shared-iterations"],
                "startVUs": ["$ref": "#/$defs/notForExecutor/shared-iterations"],
                "stages": ["$ref": "#/$defs/notForExecutor/shared-iterations"],
                "gracefulRampDown": ["$ref": "#/$defs/notForExecutor/shared-iterations"],
                "rate": ["$ref": "#/$defs/notForExecutor/shared-iterations"],
                "startRate": ["$ref": "#/$defs/notForExecutor/shared-iterations"],
                "timeUnit": ["$ref": "#/$defs/notForExecutor/shared-iterations"],
                "preAllocatedVUs": ["$ref": "#/$defs/notForExecutor/shared-iterations"],
                "maxVUs": ["$ref": "#/$defs/notForExecutor/shared-iterations"],
            ],
            "required": ["iterations"],
        ],
        "per-vu-iterations": [
            "properties": [
                "duration": ["$ref": "#/$defs/notForExecutor/per-vu-iterations"],
                "startVUs": ["$ref": "#/$defs/notForExecutor/per-vu-iterations"],
                "stages": ["$ref": "#/$defs/notForExecutor/per-vu-iterations"],
                "gracefulRampDown": ["$ref": "#/$defs/notForExecutor/per-vu-iterations"],
                "rate": ["$ref": "#/$defs/notForExecutor/per-vu-iterations"],
                "startRate": ["$ref": "#/$defs/notForExecutor/per-vu-iterations"],
                "timeUnit": ["$ref": "#/$defs/notForExecutor/per-vu-iterations"],
                "preAllocatedVUs": ["$ref": "#/$defs/notForExecutor/per-vu-iterations"],
                "maxVUs": ["$ref": "#/$defs/notForExecutor/per-vu-iterations"],
            ],
        ],
        "constant-vus": [
            "properties": [
                "iterations": ["$ref": "#/$defs/notForExecutor/constant-vus"],
                "maxDuration": ["$ref": "#/$defs/notForExecutor/constant-vus"],
                "startVUs": ["$ref": "#/$defs/notForExecutor/constant-vus"],
                "stages": ["$ref": "#/$defs/notForExecutor/constant-vus"],
                "gracefulRampDown": ["$ref": "#/$defs/notForExecutor/constant-vus"],
                "rate": ["$ref": "#/$defs/notForExecutor/constant-vus"],
                "startRate": ["$ref": "#/$defs/notForExecutor/constant-vus"],
                "timeUnit": ["$ref": "#/$defs/notForExecutor/constant-vus"],
                "preAllocatedVUs": ["$ref": "#/$defs/notForExecutor/constant-vus"],
                "maxVUs": ["$ref": "#/$defs/notForExecutor/constant-vus"],
            ],
            "required": ["duration"],
        ],
        "ramping-vus": [
            "properties": [
                "vus": ["$ref": "#/$defs/notForExecutor/ramping-vus"],
                "iterations": ["$ref": "#/$defs/notForExecutor/ramping-vus"],
                "maxDuration": ["$ref": "#/$defs/notForExecutor/ramping-vus"],
                "duration": ["$ref": "#/$defs/notForExecutor/ramping-vus"],
                "rate": ["$ref": "#/$defs/notForExecutor/ramping-vus"],
                "startRate": ["$ref": "#/$defs/notForExecutor/ramping-vus"],
                "timeUnit": ["$ref": "#/$defs/notForExecutor/ramping-vus"],
                "preAllocatedVUs": ["$ref": "#/$defs/notForExecutor/ramping-vus"],
                "maxVUs": ["$ref": "#/$defs/notForExecutor/ramping-vus"],
                "stages": [
                    "if": ["type": "array", "minItems": 1],
                    "then": [
                        "contains": ["properties": ["duration": ["$ref": "#/$defs/positiveDuration"]]],
                        "errorMessage": "the stages last no time: give at least one stage a duration above 0",
                    ],
                ],
            ],
            "required": ["stages"],
            "allOf": [
                [
                    "if": ["required": ["startVUs"], "properties": ["startVUs": ["$ref": "#/$defs/zero"]]],
                    "then": [
                        "properties": [
                            "stages": [
                                "contains": ["required": ["target"], "properties": ["target": ["not": ["$ref": "#/$defs/zero"]]]],
                                "errorMessage": "no stage has a VU: give startVUs or a stage's target at least 1",
                            ],
                        ],
                    ],
                ],
            ],
        ],
        "constant-arrival-rate": [
            "properties": [
                "vus": ["$ref": "#/$defs/notForExecutor/constant-arrival-rate"],
                "iterations": ["$ref": "#/$defs/notForExecutor/constant-arrival-rate"],
                "maxDuration": ["$ref": "#/$defs/notForExecutor/constant-arrival-rate"],
                "startVUs": ["$ref": "#/$defs/notForExecutor/constant-arrival-rate"],
                "stages": ["$ref": "#/$defs/notForExecutor/constant-arrival-rate"],
                "gracefulRampDown": ["$ref": "#/$defs/notForExecutor/constant-arrival-rate"],
                "startRate": ["$ref": "#/$defs/notForExecutor/constant-arrival-rate"],
            ],
            "required": ["rate", "duration", "preAllocatedVUs"],
        ],
        "ramping-arrival-rate": [
            "properties": [
                "vus": ["$ref": "#/$defs/notForExecutor/ramping-arrival-rate"],
                "iterations": ["$ref": "#/$defs/notForExecutor/ramping-arrival-rate"],
                "maxDuration": ["$ref": "#/$defs/notForExecutor/ramping-arrival-rate"],
                "duration": ["$ref": "#/$defs/notForExecutor/ramping-arrival-rate"],
                "startVUs": ["$ref": "#/$defs/notForExecutor/ramping-arrival-rate"],
                "gracefulRampDown": ["$ref": "#/$defs/notForExecutor/ramping-arrival-rate"],
                "rate": ["$ref": "#/$defs/notForExecutor/ramping-arrival-rate"],
            ],
            "required": ["stages", "preAllocatedVUs"],
            "anyOf": [
                ["required": ["startRate"], "properties": ["startRate": ["not": ["$ref": "#/$defs/zero"]]]],
                ["properties": ["stages": ["contains": ["required": ["target"], "properties": ["target": ["not": ["$ref": "#/$defs/zero"]]]]]]],
                ["properties": ["stages": ["maxItems": 0]]],
            ],
            "errorMessage": "every rate is 0, so nothing would start: give startRate or a stage's target a value above 0",
        ],
    ]
}
