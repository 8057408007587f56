extension ScenarioSchema {
    // The value types scenario files use (numbers, durations, sizes, secrets from the environment) and the settings a
    // scenario shares with its executor and operations.

    static let envDefinition: SchemaValue = [
        "title": "environment variable",
        "description":
            "A value taken from the environment, or from `-e NAME=VALUE` on the command line, when the file is loaded: `${NAME}`, or `${NAME:-default}` when NAME may be unset or empty. A name containing TOKEN, PASSWORD, KEY or SECRET may fill only auth.token, auth.username or auth.password.",
        "type": "string",
        "pattern": "^\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\}$",
        "patternErrorMessage": "write ${NAME} or ${NAME:-default}",
    ]

    static let integerDefinition: SchemaValue = [
        "title": "whole number",
        "description":
            "A whole number; `${NAME}` or `${NAME:-default}` is read from the environment when the file is loaded; a quoted number is read as the number, with its range checked only by featureload.",
        "type": ["integer", "string"],
        "pattern": "^(?:[+-]?[0-9_]*[0-9][0-9_]*|\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\})$",
        "patternErrorMessage": "write a whole number, or ${NAME} / ${NAME:-default} to take it from the environment",
    ]

    static let numberDefinition: SchemaValue = [
        "title": "number",
        "description": "A number; `${NAME}` or `${NAME:-default}` is read from the environment when the file is loaded.",
        "type": ["number", "string"],
        "pattern": "^(?:[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?|\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\})$",
        "patternErrorMessage": "write a number, or ${NAME} / ${NAME:-default} to take it from the environment",
    ]

    static let fractionDefinition: SchemaValue = [
        "title": "fraction",
        "description":
            "A fraction from 0 to 1, e.g. 0.01 for 1 %; `${NAME}` or `${NAME:-default}` is read from the environment when the file is loaded.",
        "type": ["number", "string"],
        "minimum": 0,
        "maximum": 1,
        "pattern": "^(?:[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?|\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\})$",
        "patternErrorMessage": "write a fraction from 0 to 1, e.g. 0.01 for 1 %",
    ]

    static let booleanDefinition: SchemaValue = [
        "title": "true or false",
        "description":
            "true or false (yes/no and on/off are read too, in any case); `${NAME}` or `${NAME:-default}` is read from the environment when the file is loaded.",
        "type": ["boolean", "string"],
        "pattern":
            "^(?:[Tt][Rr][Uu][Ee]|[Yy][Ee][Ss]|[Oo][Nn]|[Ff][Aa][Ll][Ss][Ee]|[Nn][Oo]|[Oo][Ff][Ff]|\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\})$",
        "patternErrorMessage": "write true or false",
    ]

    static let trueDefinition: SchemaValue = [
        "description": "A value featureload reads as true.",
        "anyOf": [["const": true], ["type": "string", "pattern": "^(?:[Tt][Rr][Uu][Ee]|[Yy][Ee][Ss]|[Oo][Nn])$"]],
    ]

    static let zeroDefinition: SchemaValue = [
        "description": "A count featureload reads as 0.", "anyOf": [["const": 0], ["type": "string", "pattern": "^[+-]?[0_]*0[0_]*$"]],
    ]

    static let textDefinition: SchemaValue = [
        "title": "text",
        "description": "Text (any scalar, read as text); `${NAME}` or `${NAME:-default}` is read from the environment when the file is loaded.",
        "type": ["string", "number", "boolean"],
    ]

    static let optionalTextDefinition: SchemaValue = [
        "title": "text",
        "description":
            "Text (any scalar, read as text; left empty it is the empty text); `${NAME}` or `${NAME:-default}` is read from the environment when the file is loaded.",
        "type": ["string", "number", "boolean", "null"],
    ]

    static let durationDefinition: SchemaValue = [
        "title": "duration",
        "description":
            "A duration with a unit, k6-style: ms, s, m or h, combined like 1m30s, e.g. 500ms, 30s, 5m, 1h; 0s is allowed; `${NAME}` or `${NAME:-default}` is read from the environment when the file is loaded.",
        "type": "string",
        "pattern":
            "^(?:\\s*(?:(?:(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)|\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\})(?:ms|s|m|h))+\\s*|\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\})$",
        "patternErrorMessage": "write a duration with a unit (ms, s, m, h; combined like 1m30s), e.g. 500ms, 30s, 5m, 1h",
        "examples": ["500ms", "30s", "5m", "1h", "1m30s"],
    ]

    static let positiveDurationDefinition: SchemaValue = [
        "title": "duration above 0",
        "description":
            "A duration above 0 with a unit, k6-style: ms, s, m or h, combined like 1m30s, e.g. 500ms, 30s, 5m, 1h; `${NAME}` or `${NAME:-default}` is read from the environment when the file is loaded.",
        "type": "string",
        "pattern":
            "^(?!\\s*(?:(?:0+\\.?0*|\\.0+)(?:ms|s|m|h))+\\s*$)(?:\\s*(?:(?:(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)|\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\})(?:ms|s|m|h))+\\s*|\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\})$",
        "patternErrorMessage": "write a duration above 0 with a unit (ms, s, m, h; combined like 1m30s), e.g. 500ms, 30s, 5m, 1h",
        "examples": ["500ms", "30s", "5m", "1h", "1m30s"],
    ]

    static let sizeDefinition: SchemaValue = [
        "title": "size",
        "description":
            "A size above 0, up to 1 TB: a whole number of bytes, or with KB, MB or GB (powers of 1024, any case), e.g. 512, 64KB, 10MB; `${NAME}` or `${NAME:-default}` is read from the environment when the file is loaded.",
        "type": ["integer", "string"],
        "minimum": 1,
        "maximum": 1_099_511_627_776,
        "pattern": "^ *(?:\\+?[0 ]*[1-9][0-9 ]*|\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\}) *(?:[GgMmKk] *[Bb]?|[Bb])? *$",
        "patternErrorMessage": "write a whole number of bytes with KB, MB or GB, e.g. 64KB or 10MB",
        "examples": [512, "64KB", "10MB", "1GB"],
    ]

    static let sizeRangeDefinition: SchemaValue = [
        "title": "size or size range",
        "description": "A size (512, 64KB, 10MB), or `{ min, max }` for sizes spread evenly between the two.",
        "type": ["integer", "string", "object"],
        "minimum": 1,
        "maximum": 1_099_511_627_776,
        "pattern": "^ *(?:\\+?[0 ]*[1-9][0-9 ]*|\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\}) *(?:[GgMmKk] *[Bb]?|[Bb])? *$",
        "patternErrorMessage": "write a whole number of bytes with KB, MB or GB, e.g. 64KB, or { min: 10KB, max: 2MB }",
        "properties": [
            "min": ["description": "Smallest size, e.g. 10KB; required.", "$ref": "#/$defs/size"],
            "max": ["description": "Largest size, at least min, e.g. 2MB; required.", "$ref": "#/$defs/size"],
        ],
        "required": ["min", "max"],
        "additionalProperties": false,
    ]

    static let stageDefinition: SchemaValue = [
        "title": "stage",
        "description": "One step of a ramping executor: move linearly to `target` over `duration`.",
        "type": "object",
        "properties": [
            "duration": [
                "description": "How long the move to target takes (0s jumps at once); required.", "$ref": "#/$defs/duration",
                "examples": ["30s", "1m"],
            ],
            "target": ScenarioKey.stageTarget.schema,
        ],
        "required": ["duration", "target"],
        "additionalProperties": false,
    ]

    static let stagesDefinition: SchemaValue = [
        "description":
            "ramping-vus, ramping-arrival-rate: the steps that move the VU count (ramping-vus) or the start rate (ramping-arrival-rate) linearly to each stage's target over its duration; required, at least one.",
        "type": "array",
        "minItems": 1,
        "items": ["$ref": "#/$defs/stage"],
        "examples": [[["duration": "30s", "target": 10], ["duration": "1m", "target": 10], ["duration": "10s", "target": 0]]],
    ]

    static let tagsDefinition: SchemaValue = [
        "description":
            "Tags added to every metric of the scenario, as name: value; the labels featureload and Prometheus set (scenario, operation, status, generator, run_id, le, quantile) and names beginning with __ cannot be used.",
        "type": "object",
        "propertyNames": [
            "minLength": 1,
            "not": ["anyOf": [["enum": .array(TagName.reserved.map { .string($0) })], ["pattern": "^__"]]],
            "errorMessage":
                "scenario, operation, status, generator, run_id, le and quantile are labels featureload or Prometheus sets, and __ begins Prometheus' own: choose another tag name",
        ],
        "additionalProperties": ["description": "The tag's value; required, not empty.", "$ref": "#/$defs/text", "minLength": 1],
        "examples": [["build": "${BUILD_ID}", "team": "qa"]],
    ]

    static let retryDefinition: SchemaValue = [
        "description":
            "Retry failed requests with capped exponential backoff and full jitter, honouring Retry-After; default: no retries, each request is sent once.",
        "type": "object",
        "properties": [
            "maxAttempts": ScenarioKey.maxAttempts.schema,
            "initialBackoff": ScenarioKey.initialBackoff.schema,
            "maxBackoff": ScenarioKey.maxBackoff.schema,
            "budget": ScenarioKey.retryBudget.schema,
        ],
        "additionalProperties": false,
        "examples": [["maxAttempts": 5, "initialBackoff": "100ms", "maxBackoff": "10s", "budget": "60s"]],
    ]

    static let thinkTimeDefinition: SchemaValue = [
        "title": "duration or { min, max }",
        "description":
            "Pause each VU takes after every iteration: a duration, or `{ min, max }` for a random pause between the two (seeded, so reruns pause alike); default none.",
        "type": ["string", "object"],
        "pattern":
            "^(?:\\s*(?:(?:(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)|\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\})(?:ms|s|m|h))+\\s*|\\$\\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\\})$",
        "patternErrorMessage": "write a duration with a unit, e.g. 1s, or { min: 500ms, max: 2s }",
        "properties": [
            "min": ["description": "Shortest pause, 0s or more; required.", "$ref": "#/$defs/duration"],
            "max": ["description": "Longest pause, above 0 and at least min; required.", "$ref": "#/$defs/positiveDuration"],
        ],
        "required": ["min", "max"],
        "additionalProperties": false,
        "examples": ["1s", ["min": "500ms", "max": "2s"]],
    ]

    static let setupDefinition: SchemaValue = [
        "description": "The features the operations start from (k6's setup), prepared before the scenario starts.",
        "type": "object",
        "properties": [
            "seed": ScenarioKey.setupSeed.schema,
            "sample": ScenarioKey.setupSample.schema,
        ],
        "additionalProperties": false,
    ]

    static let sweepDefinition: SchemaValue = [
        "title": "sweep",
        "description":
            "Run the scenario once per value of one parameter, one point after another, each after a warm-up left out of its figures; the report shows every point and, for vus and rate, fits the Universal Scalability Law (capacity). Points are named like `name[vus=8]`, which is how thresholds and compare gates name them.",
        "type": "object",
        "properties": [
            "vus": [
                "description": "The VUs of each point (constant-vus only), distinct, 1 to 1,000,000.",
                "$ref": "#/$defs/sweepValues",
                "examples": [[1, 2, 4, 8, 16]],
            ],
            "rate": [
                "description": "The arrival rate of each point, per timeUnit (constant-arrival-rate only), distinct, 1 to 1,000,000.",
                "$ref": "#/$defs/sweepValues",
                "examples": [[50, 100, 200, 400]],
            ],
            "batchSize": [
                "description":
                    "Edits or features per request of each point (`adds` of applyEdits, `batchSize` of the other operations; one operation only), distinct, 1 to 1,000,000.",
                "$ref": "#/$defs/sweepValues",
                "examples": [[1, 10, 100, 1000]],
            ],
            "warmUp": [
                "description":
                    "How long each point runs before it is measured (constant-vus and constant-arrival-rate only); default 2s for those, 0s otherwise.",
                "$ref": "#/$defs/duration",
                "default": "2s",
                "examples": ["1s"],
            ],
            "slo": [
                "description": "The p95 request latency a point must keep to count as usable capacity; default none.",
                "$ref": "#/$defs/positiveDuration",
                "examples": ["200ms"],
            ],
        ],
        "additionalProperties": false,
        "oneOf": [["required": ["vus"]], ["required": ["rate"]], ["required": ["batchSize"]]],
        "errorMessage": "sweep exactly one of vus, rate or batchSize",
    ]

    static let sweepValuesDefinition: SchemaValue = [
        "type": "array", "minItems": 1, "uniqueItems": true, "items": .object(KeyValueType.sweepValue.schema),
    ]
}
