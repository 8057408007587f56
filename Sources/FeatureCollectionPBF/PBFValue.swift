import FeatureModel

/// Attribute values between ``JSONValue`` and the wire's Value, chosen by the field's type as ArcGIS writes them:
///
/// | field type | wire value |
/// |---|---|
/// | OID | `uint_value` (`uint64_value` past 2^32 − 1) |
/// | SmallInteger, Integer | `sint_value` |
/// | BigInteger, Date (milliseconds since 1970) | `sint64_value` |
/// | Single | `float_value` |
/// | Double | `double_value` |
/// | String, GUID, GlobalID, DateOnly, TimeOnly, TimestampOffset, … | `string_value` |
/// | any, when null | `null_value` |
///
/// A value whose kind does not fit its field's type (a number in a string field) travels as its own kind: an
/// integer as `sint64_value`, a fraction as `double_value`, text as `string_value`, a Boolean as `bool_value`.
enum PBFValue {
    typealias Value = FeatureCollectionMessage.Value

    static func message(_ value: JSONValue, type: FieldType) -> Value {
        var message = Value()
        switch value {
        case .null, .array, .object:
            message.nullValue = true
        case .bool(let flag):
            message.boolValue = flag
        case .string(let text):
            message.stringValue = text
        case .int(let integer):
            message.valueType = integerValue(integer, type: type)
        case .double(let number):
            if type == .single {
                message.floatValue = Float(number)
            } else if type.isInteger || type == .date, let integer = JSONValue.double(number).intValue {
                message.valueType = integerValue(integer, type: type)
            } else {
                message.doubleValue = number
            }
        }
        return message
    }

    private static func integerValue(_ integer: Int64, type: FieldType) -> Value.OneOf_ValueType {
        switch type {
        case .oid where integer >= 0:
            return integer <= Int64(UInt32.max) ? .uintValue(UInt32(integer)) : .uint64Value(UInt64(integer))
        case .smallInteger, .integer:
            if let narrow = Int32(exactly: integer) { return .sintValue(narrow) }
            return .sint64Value(integer)
        case .single:
            return .floatValue(Float(integer))
        case .double:
            return .doubleValue(Double(integer))
        default:
            return .sint64Value(integer)
        }
    }

    static func value(_ message: Value) -> JSONValue {
        switch message.valueType {
        case nil, .nullValue: return .null
        case .stringValue(let text): return .string(text)
        // The shortest text of the Float read back as a Double: 1.1 stays 1.1, not 1.100000023841858.
        case .floatValue(let number): return .double(Double("\(number)") ?? Double(number))
        case .doubleValue(let number): return .double(number)
        case .sintValue(let integer): return .int(Int64(integer))
        case .uintValue(let integer): return .int(Int64(integer))
        case .int64Value(let integer): return .int(integer)
        case .uint64Value(let integer): return .int(Int64(clamping: integer))
        case .sint64Value(let integer): return .int(integer)
        case .boolValue(let flag): return .bool(flag)
        }
    }
}
