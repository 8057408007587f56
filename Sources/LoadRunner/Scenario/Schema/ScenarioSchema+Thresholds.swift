extension ScenarioSchema {
    // Comparisons, secrets and threshold conditions.

    static let comparisonDefinition: SchemaValue = [
        "title": "comparison",
        "description": "A gate on the ratio of one metric between two scenarios.",
        "type": "object",
        "properties": [
            "baseline": [
                "description": "Name of the scenario compared against (the denominator); required.",
                "$ref": "#/$defs/text",
                "minLength": 1,
                "examples": ["single-edits"],
            ],
            "candidate": [
                "description": "Name of the scenario compared with the baseline (the numerator), a different one; required.",
                "$ref": "#/$defs/text",
                "minLength": 1,
                "examples": ["batched-edits"],
            ],
            "metric": [
                "description": "What is compared, per second of each scenario; default editsPerSecond.",
                "type": "string",
                "enum": ["editsPerSecond", "requestsPerSecond"],
                "default": "editsPerSecond",
            ],
            "min": [
                "description": "Smallest candidate / baseline ratio that passes, above 0, e.g. 10 for ten times; default none (the ratio is reported, not gated).",
                "$ref": "#/$defs/number",
                "exclusiveMinimum": 0,
                "examples": [10],
            ],
        ],
        "required": ["baseline", "candidate"],
        "additionalProperties": false,
    ]

    static let secretDefinition: SchemaValue = [
        "title": "secret from the environment",
        "description": "A secret, written as ${ENV_NAME} (or text containing it) so that it never sits in the file.",
        "type": "string",
        "pattern": "^$|\\$\\{",
        "patternErrorMessage": "do not write the secret in the file: write ${ENV_NAME} and export it in the environment",
    ]

    static let thresholdConditionDefinition: SchemaValue = [
        "counter": [
            "description": "A condition on a counter metric, `aggregation operator number` with count or rate, as a text or as `{ threshold, abortOnFail, delayAbortEval }`.",
            "type": ["string", "object"],
            "pattern": "^\\s*(?:count|rate)\\s*(?:<=|>=|==|!=|<|>)\\s*[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?\\s*$|\\$\\{",
            "patternErrorMessage": "write `aggregation operator number` with count or rate and one of < <= > >= == !=, e.g. `count>=1000`",
            "properties": [
                "threshold": [
                    "description": "The condition, e.g. `count>=1000`; required.",
                    "type": "string",
                    "pattern": "^\\s*(?:count|rate)\\s*(?:<=|>=|==|!=|<|>)\\s*[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?\\s*$|\\$\\{",
                    "patternErrorMessage": "write `aggregation operator number` with count or rate and one of < <= > >= == !=, e.g. `count>=1000`",
                    "examples": ["count>=1000", "rate>50"],
                ],
                "abortOnFail": [
                    "description": "Stop the whole run as soon as this condition fails (after delayAbortEval); default false.",
                    "$ref": "#/$defs/boolean",
                    "default": false,
                ],
                "delayAbortEval": [
                    "description": "Let the run go on this long before a failing condition may abort it; default 0s.",
                    "$ref": "#/$defs/duration",
                    "default": "0s",
                    "examples": ["10s"],
                ],
            ],
            "required": ["threshold"],
            "additionalProperties": false,
            "examples": ["count>=1000", ["threshold": "count>=1000", "abortOnFail": true, "delayAbortEval": "10s"]],
        ],
        "rate": [
            "description": "A condition on a rate metric, `aggregation operator number` with rate, as a text or as `{ threshold, abortOnFail, delayAbortEval }`.",
            "type": ["string", "object"],
            "pattern": "^\\s*(?:rate)\\s*(?:<=|>=|==|!=|<|>)\\s*[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?\\s*$|\\$\\{",
            "patternErrorMessage": "write `aggregation operator number` with rate and one of < <= > >= == !=, e.g. `rate<0.01`",
            "properties": [
                "threshold": [
                    "description": "The condition, e.g. `rate<0.01`; required.",
                    "type": "string",
                    "pattern": "^\\s*(?:rate)\\s*(?:<=|>=|==|!=|<|>)\\s*[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?\\s*$|\\$\\{",
                    "patternErrorMessage": "write `aggregation operator number` with rate and one of < <= > >= == !=, e.g. `rate<0.01`",
                    "examples": ["rate<0.01"],
                ],
                "abortOnFail": [
                    "description": "Stop the whole run as soon as this condition fails (after delayAbortEval); default false.",
                    "$ref": "#/$defs/boolean",
                    "default": false,
                ],
                "delayAbortEval": [
                    "description": "Let the run go on this long before a failing condition may abort it; default 0s.",
                    "$ref": "#/$defs/duration",
                    "default": "0s",
                    "examples": ["10s"],
                ],
            ],
            "required": ["threshold"],
            "additionalProperties": false,
            "examples": ["rate<0.01", ["threshold": "rate<0.01", "abortOnFail": true, "delayAbortEval": "10s"]],
        ],
        "trend": [
            "description": "A condition on a trend metric, `aggregation operator number` with avg, min, max, med or p(N) with N from 0 to 100, as a text or as `{ threshold, abortOnFail, delayAbortEval }`.",
            "type": ["string", "object"],
            "pattern": "^\\s*(?:avg|min|max|med|p\\s*\\(\\s*0*(?:100(?:\\.0*)?|[0-9]{1,2}(?:\\.[0-9]*)?|\\.[0-9]+)\\s*\\))\\s*(?:<=|>=|==|!=|<|>)\\s*[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?\\s*$|\\$\\{",
            "patternErrorMessage": "write `aggregation operator number` with avg, min, max, med or p(N) with N from 0 to 100 and one of < <= > >= == !=, e.g. `p(95)<200`",
            "properties": [
                "threshold": [
                    "description": "The condition, e.g. `p(95)<200`; required.",
                    "type": "string",
                    "pattern": "^\\s*(?:avg|min|max|med|p\\s*\\(\\s*0*(?:100(?:\\.0*)?|[0-9]{1,2}(?:\\.[0-9]*)?|\\.[0-9]+)\\s*\\))\\s*(?:<=|>=|==|!=|<|>)\\s*[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?\\s*$|\\$\\{",
                    "patternErrorMessage": "write `aggregation operator number` with avg, min, max, med or p(N) with N from 0 to 100 and one of < <= > >= == !=, e.g. `p(95)<200`",
                    "examples": ["p(95)<200", "avg<100", "p(99.9)<1000"],
                ],
                "abortOnFail": [
                    "description": "Stop the whole run as soon as this condition fails (after delayAbortEval); default false.",
                    "$ref": "#/$defs/boolean",
                    "default": false,
                ],
                "delayAbortEval": [
                    "description": "Let the run go on this long before a failing condition may abort it; default 0s.",
                    "$ref": "#/$defs/duration",
                    "default": "0s",
                    "examples": ["10s"],
                ],
            ],
            "required": ["threshold"],
            "additionalProperties": false,
            "examples": ["p(95)<200", ["threshold": "p(95)<200", "abortOnFail": true, "delayAbortEval": "10s"]],
        ],
        "gauge": [
            "description": "A condition on a gauge metric, `aggregation operator number` with value, min or max, as a text or as `{ threshold, abortOnFail, delayAbortEval }`.",
            "type": ["string", "object"],
            "pattern": "^\\s*(?:value|min|max)\\s*(?:<=|>=|==|!=|<|>)\\s*[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?\\s*$|\\$\\{",
            "patternErrorMessage": "write `aggregation operator number` with value, min or max and one of < <= > >= == !=, e.g. `value<=100`",
            "properties": [
                "threshold": [
                    "description": "The condition, e.g. `value<=100`; required.",
                    "type": "string",
                    "pattern": "^\\s*(?:value|min|max)\\s*(?:<=|>=|==|!=|<|>)\\s*[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?\\s*$|\\$\\{",
                    "patternErrorMessage": "write `aggregation operator number` with value, min or max and one of < <= > >= == !=, e.g. `value<=100`",
                    "examples": ["value<=100", "max<500"],
                ],
                "abortOnFail": [
                    "description": "Stop the whole run as soon as this condition fails (after delayAbortEval); default false.",
                    "$ref": "#/$defs/boolean",
                    "default": false,
                ],
                "delayAbortEval": [
                    "description": "Let the run go on this long before a failing condition may abort it; default 0s.",
                    "$ref": "#/$defs/duration",
                    "default": "0s",
                    "examples": ["10s"],
                ],
            ],
            "required": ["threshold"],
            "additionalProperties": false,
            "examples": ["value<=100", ["threshold": "value<=100", "abortOnFail": true, "delayAbortEval": "10s"]],
        ],
    ]

    static let thresholdConditionsDefinition: SchemaValue = [
        "counter": [
            "description": "One condition, or a list of them, that the counter metric must meet for the run to pass.",
            "if": ["type": "array"],
            "then": ["items": ["$ref": "#/$defs/thresholdCondition/counter"]],
            "else": ["$ref": "#/$defs/thresholdCondition/counter"],
        ],
        "rate": [
            "description": "One condition, or a list of them, that the rate metric must meet for the run to pass.",
            "if": ["type": "array"],
            "then": ["items": ["$ref": "#/$defs/thresholdCondition/rate"]],
            "else": ["$ref": "#/$defs/thresholdCondition/rate"],
        ],
        "trend": [
            "description": "One condition, or a list of them, that the trend metric must meet for the run to pass.",
            "if": ["type": "array"],
            "then": ["items": ["$ref": "#/$defs/thresholdCondition/trend"]],
            "else": ["$ref": "#/$defs/thresholdCondition/trend"],
        ],
        "gauge": [
            "description": "One condition, or a list of them, that the gauge metric must meet for the run to pass.",
            "if": ["type": "array"],
            "then": ["items": ["$ref": "#/$defs/thresholdCondition/gauge"]],
            "else": ["$ref": "#/$defs/thresholdCondition/gauge"],
        ],
    ]
}
