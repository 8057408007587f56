import FeatureModel

/// Checks one attribute value against its field and converts it to the value stored in SQLite.
///
/// Rules, each with the ArcGIS edit error code it fails with:
/// - `null` in a non-nullable field: 1001.
/// - integer fields (SmallInteger, Integer, BigInteger, OID) take whole JSON numbers in the type's range; Single and
///   Double take finite numbers; Date takes epoch milliseconds; String, GUID and GlobalID take strings. Anything
///   else (a string in a number field, a boolean, an object): 1016.
/// - strings longer than the field's `length` in UTF-16 code units (as SQL Server's NVARCHAR counts): 1016; a GUID that is not `{8-4-4-4-12}` hex: 1016. GUIDs are
///   stored normalised as `{UPPER}`.
/// - a value outside the field's coded-value or range domain: 1019.
enum AttributeCoercion {
    /// The stored form of `value` for `field`, or the edit error it fails with.
    static func coerce(_ value: JSONValue, for field: Field) -> Result<SQLValue, EditFailure> {
        if case .null = value {
            return field.isNullable
                ? .success(.null) : .failure(EditFailure(code: EditErrorCode.notNullable, description: "Field '\(field.name)' cannot be null."))
        }
        let stored: SQLValue
        let type = field.type
        if type.isInteger {
            guard let integer = value.intValue else { return mismatch(field, "an integer", value) }
            let limits = type.integerRange ?? Int64.min...Int64.max
            guard limits.contains(integer) else {
                return .failure(
                    EditFailure(
                        code: EditErrorCode.settingValueFailed,
                        description: "Setting of value for '\(field.name)' failed: \(integer) is out of range."
                    )
                )
            }
            stored = .integer(integer)
        } else if type == .double || type == .single {
            guard let number = value.doubleValue, number.isFinite else { return mismatch(field, "a number", value) }
            stored = .real(number)
        } else if type == .date {
            guard let number = value.doubleValue, number.isFinite, abs(number) < 9.0e15 else { return mismatch(field, "epoch milliseconds", value) }
            stored = .integer(value.intValue ?? Int64(number.rounded()))
        } else if type == .guid || type == .globalID {
            guard let text = value.stringValue else { return mismatch(field, "a GUID string", value) }
            guard let normalized = GlobalID.normalized(text) else {
                return .failure(
                    EditFailure(
                        code: EditErrorCode.settingValueFailed,
                        description: "Setting of value for '\(field.name)' failed: '\(text)' is not a GUID."
                    )
                )
            }
            stored = .text(normalized)
        } else {
            guard let text = value.stringValue else { return mismatch(field, "a string", value) }
            // Counted as ArcGIS' enterprise geodatabases store text (SQL Server NVARCHAR(n), as hosted services
            // use): UTF-16 code units, so a character outside the Basic Multilingual Plane counts two and each
            // combining mark one. Grapheme clusters would let "C" plus 5,000 combining marks into a length-2 field.
            // UTF-8 bytes bound UTF-16 units from above, so most values pass on the first comparison.
            if let length = field.length, length > 0, text.utf8.count > length, text.utf16.count > length {
                return .failure(
                    EditFailure(
                        code: EditErrorCode.settingValueFailed,
                        description: "Setting of value for '\(field.name)' failed: longer than \(length) characters."
                    )
                )
            }
            stored = .text(text)
        }
        if let domain = field.domain, !domain.contains(value) {
            return .failure(
                EditFailure(
                    code: EditErrorCode.constraintViolated,
                    description: "Value \(value) of field '\(field.name)' is not in domain '\(domain.name)'."
                )
            )
        }
        return .success(stored)
    }

    private static func mismatch(_ field: Field, _ expected: String, _ value: JSONValue) -> Result<SQLValue, EditFailure> {
        .failure(
            EditFailure(
                code: EditErrorCode.settingValueFailed,
                description: "Setting of value for '\(field.name)' failed: expected \(expected), got \(value)."
            )
        )
    }
}
