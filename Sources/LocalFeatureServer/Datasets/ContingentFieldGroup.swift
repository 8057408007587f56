package import FeatureModel

/// A field group of contingent values as a dataset file writes it: the fields, whether a miss is an error
/// (`restrictive`) or a warning, and every valid combination of their values.
///
/// ```json
/// {"name": "status_protection", "restrictive": true, "fields": ["status", "protection"],
///  "contingencies": [["Active", 2], ["Unknown", {"any": true}], ["Inactive", null]]}
/// ```
/// A value is a code of the field's domain, `null` (the field must be null), `{"any": true}` (any value,
/// null included) or `{"range": [min, max]}` (a sub-range of a range domain).
package struct ContingentFieldGroup: Sendable, Hashable, Codable {
    package var name: String
    package var restrictive: Bool
    /// The group's fields, in the order of each contingency's values.
    package var fields: [String]
    /// The valid combinations; each has one value per field.
    package var contingencies: [[ContingentValue]]

    /// A field group.
    package init(name: String, restrictive: Bool, fields: [String], contingencies: [[ContingentValue]]) {
        self.name = name
        self.restrictive = restrictive
        self.fields = fields
        self.contingencies = contingencies
    }

    /// Whether `attributes` (by field name, exact case) match at least one contingency.
    func isSatisfied(by attributes: [String: JSONValue]) -> Bool {
        contingencies.contains { contingency in
            zip(fields, contingency).allSatisfy { field, value in value.matches(attributes[field] ?? .null) }
        }
    }
}

/// One value of a contingency.
package enum ContingentValue: Sendable, Hashable, Codable {
    /// Any value of the field's domain, null included.
    case any
    /// Null only.
    case null
    /// Exactly this code.
    case code(JSONValue)
    /// A number in `min...max`.
    case range(min: Double, max: Double)

    /// Whether `value` matches.
    package func matches(_ value: JSONValue) -> Bool {
        switch self {
        case .any: return true
        case .null: return value.isNull
        case .code(let code):
            if let a = code.doubleValue, let b = value.doubleValue { return a == b }
            return code == value
        case .range(let min, let max):
            guard let number = value.doubleValue else { return false }
            return number >= min && number <= max
        }
    }

    /// The value as a dataset file writes it.
    package var json: JSONValue {
        switch self {
        case .any: return ["any": true]
        case .null: return .null
        case .code(let code): return code
        case .range(let min, let max): return ["range": [.double(min), .double(max)]]
        }
    }

    /// The value a dataset file wrote, or nil when it is not one.
    package init?(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .object(let members):
            if members.count == 1, members["any"] == .bool(true) {
                self = .any
            } else if members.count == 1, case .array(let bounds)? = members["range"], bounds.count == 2,
                let min = bounds[0].doubleValue, let max = bounds[1].doubleValue, min <= max
            {
                self = .range(min: min, max: max)
            } else {
                return nil
            }
        case .string, .int, .double: self = .code(json)
        case .bool, .array: return nil
        }
    }

    package init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        guard let value = ContingentValue(json: json) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "expected a code, null, {\"any\":true} or {\"range\":[min,max]}")
            )
        }
        self = value
    }

    package func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}
