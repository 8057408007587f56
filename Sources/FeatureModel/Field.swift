/// An ArcGIS field type name (`esriFieldType…`).
///
/// An open set: a live service may send a type this version does not know, and it is kept as is.
public struct FieldType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let oid = FieldType(rawValue: "esriFieldTypeOID")
    public static let globalID = FieldType(rawValue: "esriFieldTypeGlobalID")
    public static let guid = FieldType(rawValue: "esriFieldTypeGUID")
    public static let string = FieldType(rawValue: "esriFieldTypeString")
    public static let smallInteger = FieldType(rawValue: "esriFieldTypeSmallInteger")
    public static let integer = FieldType(rawValue: "esriFieldTypeInteger")
    public static let bigInteger = FieldType(rawValue: "esriFieldTypeBigInteger")
    public static let single = FieldType(rawValue: "esriFieldTypeSingle")
    public static let double = FieldType(rawValue: "esriFieldTypeDouble")
    public static let date = FieldType(rawValue: "esriFieldTypeDate")
    public static let geometry = FieldType(rawValue: "esriFieldTypeGeometry")

    public var description: String { rawValue }

    /// Whether values of this type are whole numbers.
    public var isInteger: Bool { self == .oid || self == .smallInteger || self == .integer || self == .bigInteger }
    /// The values a field of this type can hold when they are narrower than 64 bits: 16 bits for `smallInteger`, 32
    /// for `integer`; nil for every other type (64-bit integers, dates, and the types that are not whole numbers).
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .smallInteger: Int64(Int16.min)...Int64(Int16.max)
        case .integer: Int64(Int32.min)...Int64(Int32.max)
        default: nil
        }
    }
    /// Whether values of this type are numbers.
    public var isNumeric: Bool { isInteger || self == .single || self == .double || self == .date }
    /// Whether values of this type are text (GlobalID and GUID included).
    public var isText: Bool { self == .string || self == .globalID || self == .guid }
}

/// A coded value in a coded-value domain.
public struct CodedValue: Sendable, Hashable, Codable {
    public var name: String
    public var code: JSONValue

    public init(name: String, code: JSONValue) {
        self.name = name
        self.code = code
    }
}

/// An attribute domain: a list of coded values or a numeric range.
public enum Domain: Sendable, Hashable, Codable {
    case codedValue(name: String, codedValues: [CodedValue])
    case range(name: String, minValue: Double, maxValue: Double)

    private enum CodingKeys: String, CodingKey { case type, name, codedValues, range }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        let name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        switch type {
        case "codedValue":
            self = .codedValue(name: name, codedValues: try c.decode([CodedValue].self, forKey: .codedValues))
        case "range":
            let range = try c.decode([Double].self, forKey: .range)
            guard range.count == 2 else {
                throw DecodingError.dataCorruptedError(forKey: .range, in: c, debugDescription: "range must be [min, max]")
            }
            self = .range(name: name, minValue: range[0], maxValue: range[1])
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: c, debugDescription: "unknown domain type '\(type)'; expected codedValue or range")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .codedValue(let name, let values):
            try c.encode("codedValue", forKey: .type)
            try c.encode(name, forKey: .name)
            try c.encode(values, forKey: .codedValues)
        case .range(let name, let minValue, let maxValue):
            try c.encode("range", forKey: .type)
            try c.encode(name, forKey: .name)
            try c.encode([minValue, maxValue], forKey: .range)
        }
    }

    /// The domain's name.
    public var name: String {
        switch self {
        case .codedValue(let name, _), .range(let name, _, _): return name
        }
    }

    /// Whether `value` lies in the domain. `null` is left to the field's nullability.
    public func contains(_ value: JSONValue) -> Bool {
        if value.isNull { return true }
        switch self {
        case .codedValue(_, let values):
            return values.contains { coded in
                if let a = coded.code.doubleValue, let b = value.doubleValue { return a == b }
                return coded.code == value
            }
        case .range(_, let minValue, let maxValue):
            guard let number = value.doubleValue else { return false }
            return number >= minValue && number <= maxValue
        }
    }
}

/// A field of a layer or table.
public struct Field: Sendable, Hashable, Codable {
    public var name: String
    public var type: FieldType
    public var alias: String?
    public var length: Int?
    public var nullable: Bool?
    public var editable: Bool?
    public var domain: Domain?
    public var defaultValue: JSONValue?

    public init(
        name: String, type: FieldType, alias: String? = nil, length: Int? = nil, nullable: Bool? = true,
        editable: Bool? = true, domain: Domain? = nil, defaultValue: JSONValue? = nil
    ) {
        self.name = name
        self.type = type
        self.alias = alias ?? name
        self.length = length
        self.nullable = nullable
        self.editable = editable
        self.domain = domain
        self.defaultValue = defaultValue
    }

    /// Whether the field accepts null (a missing `nullable` key means yes).
    public var isNullable: Bool { nullable ?? true }
    /// Whether clients may write the field (a missing `editable` key means yes).
    public var isEditable: Bool { editable ?? true }
}
