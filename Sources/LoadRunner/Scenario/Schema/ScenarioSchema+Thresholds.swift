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
                "description":
                    "Smallest candidate / baseline ratio that passes, above 0, e.g. 10 for ten times; default none (the ratio is reported, not gated).",
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
        "allOf": [
            [
                "not": ["pattern": "\\$\\{[^}]*:-"],
                "errorMessage": "a ${ENV_NAME:-default} here would be a secret written in the file: write ${ENV_NAME} and export it",
            ]
        ],
    ]

    /// A threshold condition per metric kind, its aggregations those the threshold parser takes
    /// (``MetricKind/aggregations``), with examples.
    static let thresholdConditionDefinition = SchemaValue.object(
        [
            (MetricKind.counter, ["count>=1000", "rate>50"]),
            (.rate, ["rate<0.01"]),
            (.trend, ["p(95)<200", "avg<100", "p(99.9)<1000"]),
            (.gauge, ["value<=100", "max<500"]),
        ].map { kind, examples in SchemaValue.Member(kind.rawValue, thresholdCondition(kind, examples: examples)) })

    /// The condition on a metric of `kind`: `aggregation operator number`, as a text or as `{ threshold, abortOnFail,
    /// delayAbortEval }`.
    static func thresholdCondition(_ kind: MetricKind, examples: [String]) -> SchemaValue {
        let percentile = "p\\s*\\(\\s*0*(?:100(?:\\.0*)?|[0-9]{1,2}(?:\\.[0-9]*)?|\\.[0-9]+)\\s*\\)"
        let aggregations = kind.aggregations.map { $0 == "p(N)" ? percentile : $0 }.joined(separator: "|")
        let number = "[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
        let pattern = SchemaValue.string("^\\s*(?:\(aggregations))\\s*(?:<=|>=|==|!=|<|>)\\s*\(number)\\s*$|\\$\\{")
        var names = kind.aggregations
        let last = names.removeLast()
        let listed =
            (names.isEmpty ? last : names.joined(separator: ", ") + " or " + last)
            + (kind.aggregations.contains("p(N)") ? " with N from 0 to 100" : "")
        let message = SchemaValue.string("write `aggregation operator number` with \(listed) and one of < <= > >= == !=, e.g. `\(examples[0])`")
        return [
            "description": .string(
                "A condition on a \(kind.rawValue) metric, `aggregation operator number` with \(listed), as a text or as `{ threshold, abortOnFail, delayAbortEval }`."
            ),
            "type": ["string", "object"],
            "pattern": pattern,
            "patternErrorMessage": message,
            "properties": [
                "threshold": [
                    "description": .string("The condition, e.g. `\(examples[0])`; required."),
                    "type": "string",
                    "pattern": pattern,
                    "patternErrorMessage": message,
                    "examples": .array(examples.map { .string($0) }),
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
            "examples": [.string(examples[0]), ["threshold": .string(examples[0]), "abortOnFail": true, "delayAbortEval": "10s"]],
        ]
    }

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
