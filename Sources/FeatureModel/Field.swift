/// An ArcGIS field type name (`esriFieldType…`).
///
/// An open set: a live service may send a type this version does not know, and it is kept as is.
public struct FieldType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The ArcGIS name of the type, such as `esriFieldTypeString`.
    public var rawValue: String
    /// The field type named `rawValue`; any name is accepted, so types this library does not list still decode.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The object ID field, an integer the service assigns.
    public static let oid = FieldType(rawValue: "esriFieldTypeOID")
    /// The GlobalID field, a GUID the service assigns or the client supplies with `useGlobalIds`.
    public static let globalID = FieldType(rawValue: "esriFieldTypeGlobalID")
    /// A GUID field, typically a foreign key to a GlobalID.
    public static let guid = FieldType(rawValue: "esriFieldTypeGUID")
    /// A text field, limited to the field's `length`.
    public static let string = FieldType(rawValue: "esriFieldTypeString")
    /// A 16-bit integer field.
    public static let smallInteger = FieldType(rawValue: "esriFieldTypeSmallInteger")
    /// A 32-bit integer field.
    public static let integer = FieldType(rawValue: "esriFieldTypeInteger")
    /// A 64-bit integer field.
    public static let bigInteger = FieldType(rawValue: "esriFieldTypeBigInteger")
    /// A 32-bit floating-point field.
    public static let single = FieldType(rawValue: "esriFieldTypeSingle")
    /// A 64-bit floating-point field.
    public static let double = FieldType(rawValue: "esriFieldTypeDouble")
    /// A date field, in epoch milliseconds (UTC).
    public static let date = FieldType(rawValue: "esriFieldTypeDate")
    /// The geometry field of a feature layer.
    public static let geometry = FieldType(rawValue: "esriFieldTypeGeometry")

    /// The ArcGIS name of the type.
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
    /// The value's display name.
    public var name: String
    /// The value stored in the field.
    public var code: JSONValue

    package init(name: String, code: JSONValue) {
        self.name = name
        self.code = code
    }
}

/// An attribute domain: a list of coded values or a numeric range.
public enum Domain: Sendable, Hashable, Codable {
    case codedValue(name: String, codedValues: [CodedValue])
    case range(name: String, minValue: Double, maxValue: Double)

    private enum CodingKeys: String, CodingKey { case type, name, codedValues, range }

    /// Decodes a domain from its JSON object, by its `type` (`codedValue`, `range` or `inherited`).
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

    /// Encodes the domain as its JSON object.
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
    /// The field name; attribute keys use it.
    public var name: String
    /// The field's type.
    public var type: FieldType
    /// The display name, when it differs from the name.
    public var alias: String?
    /// The most characters a string field holds.
    public var length: Int?
    /// Whether the field accepts null; nil when the service does not say (see ``isNullable``).
    public var nullable: Bool?
    /// Whether clients may write the field; nil when the service does not say (see ``isEditable``).
    public var editable: Bool?
    /// The values the field accepts, when it has a domain.
    public var domain: Domain?
    /// The value a new feature gets when it leaves the field out.
    public var defaultValue: JSONValue?

    package init(
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
