import FeatureModel
import Foundation

extension FieldCoercion {
    /// `value` typed for `field`, or why it cannot be.
    static func coerce(_ value: JSONValue, to field: Field) -> Result<JSONValue, RecordError> {
        if value.isNull { return .success(.null) }
        let name = field.name
        func problem(_ reason: String) -> Result<JSONValue, RecordError> { .failure(RecordError("field '\(name)': \(reason)")) }
        let type = field.type
        if type.isInteger {
            let number: Int64
            switch value {
            case .int(let integer): number = integer
            case .double(let double):
                guard let whole = JSONValue.double(double).intValue else { return problem("\(double) is not a whole number") }
                number = whole
            case .string(let text):
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { return .success(.null) }
                if let integer = Int64(trimmed) {
                    number = integer
                } else if let double = Double(trimmed), let whole = JSONValue.double(double).intValue {
                    number = whole
                } else if let double = Double(trimmed), double.isFinite {
                    return problem("'\(text)' is not a whole number")
                } else {
                    return problem("'\(text)' is not an integer")
                }
            default: return problem("\(value) is not an integer")
            }
            if let range = type.integerRange, !range.contains(number) {
                return problem("\(number) is outside \(range.lowerBound)…\(range.upperBound) of \(type.rawValue)")
            }
            return .success(.int(number))
        }
        switch type {
        case .single, .double:
            switch value {
            case .int: return .success(value)
            case .double(let double): return double.isFinite ? .success(value) : problem("\(double) is not a finite number")
            case .string(let text):
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { return .success(.null) }
                if let integer = Int64(trimmed) { return .success(.int(integer)) }
                guard let double = Double(trimmed), double.isFinite else { return problem("'\(text)' is not a number") }
                return .success(.double(double))
            default: return problem("\(value) is not a number")
            }
        case .date:
            switch value {
            case .int: return .success(value)
            case .double(let double):
                guard let whole = value.intValue else { return problem("\(double) is not whole epoch milliseconds") }
                return .success(.int(whole))
            case .string(let text):
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { return .success(.null) }
                if let milliseconds = Int64(trimmed) ?? ISODate.epochMilliseconds(trimmed) { return .success(.int(milliseconds)) }
                return problem("'\(text)' is not a date; write epoch milliseconds or ISO 8601 (2024-05-01, 2024-05-01T12:30:00Z)")
            default: return problem("\(value) is not a date")
            }
        case .globalID, .guid:
            guard let text = value.stringValue else { return problem("\(value) is not a GUID") }
            if text.trimmingCharacters(in: .whitespaces).isEmpty { return .success(.null) }
            guard let normalized = GlobalID.normalized(text) else { return problem("'\(text)' is not a GUID ({8-4-4-4-12} hex digits)") }
            return .success(.string(normalized))
        case .string:
            let text: String
            switch value {
            case .string(let string): text = string
            case .int(let integer): text = String(integer)
            case .double(let double): text = String(double)
            case .bool(let bool): text = String(bool)
            default: return problem("\(value) is not text")
            }
            // Characters are counted only when the UTF-8 bytes could exceed the length (a character is at least a byte).
            if let length = field.length, length > 0, text.utf8.count > length, text.count > length {
                return problem("'\(text.prefix(40))\(text.count > 40 ? "…" : "")' is \(text.count) characters; the field holds \(length)")
            }
            return .success(.string(text))
        default:
            return .success(value)
        }
    }
}
