/// The functions a `where` clause may call: the list of ArcGIS standardized queries, nothing else.
///
/// Functions with ordinary call syntax are found by name (case-insensitive) through ``named(_:)``; `EXTRACT`,
/// `TRIM`, `CAST`, `POSITION(a IN b)` and `SUBSTRING(s FROM i FOR n)` have their own syntax in ``WhereParser``.
/// Any other name, including every SQLite built-in outside this list, is rejected.
///
/// | group | functions |
/// |---|---|
/// | date | `CURRENT_DATE`, `CURRENT_TIMESTAMP` (also with `()`), `EXTRACT(YEAR|MONTH|DAY|HOUR|MINUTE|SECOND FROM d)` |
/// | text | `UPPER(s)`, `LOWER(s)`, `CHAR_LENGTH(s)`, `CONCAT(a, b, …)`, `POSITION(a IN s)`, `SUBSTRING(s FROM i [FOR n])` (or `SUBSTRING(s, i [, n])`), `TRIM([BOTH|LEADING|TRAILING] [c] FROM s)`, `TRIM(s)` |
/// | number | `ABS`, `CEILING`, `FLOOR`, `ROUND(x [, n])`, `TRUNCATE(x [, n])`, `MOD(a, b)`, `POWER(a, b)`, `LOG` (natural), `LOG10`, `SIN`, `COS`, `TAN` |
/// | other | `COALESCE(a, b, …)`, `NULLIF(a, b)`, `CAST(x AS INTEGER|INT|SMALLINT|FLOAT|REAL|DOUBLE|VARCHAR[(n)]|CHAR[(n)]|NVARCHAR[(n)])` |
enum WhereFunction: String, Sendable, Hashable, CaseIterable {
    case currentDate = "CURRENT_DATE"
    case currentTimestamp = "CURRENT_TIMESTAMP"
    case upper = "UPPER"
    case lower = "LOWER"
    case charLength = "CHAR_LENGTH"
    case concat = "CONCAT"
    /// `POSITION(needle IN haystack)`: arguments `[needle, haystack]`; 1-based, 0 when absent.
    case position = "POSITION"
    /// `SUBSTRING(s FROM start [FOR length])`: arguments `[s, start]` or `[s, start, length]`; 1-based.
    case substring = "SUBSTRING"
    case abs = "ABS"
    case ceiling = "CEILING"
    case floor = "FLOOR"
    case round = "ROUND"
    case truncate = "TRUNCATE"
    case mod = "MOD"
    case power = "POWER"
    case log = "LOG"
    case log10 = "LOG10"
    case sin = "SIN"
    case cos = "COS"
    case tan = "TAN"
    case coalesce = "COALESCE"
    case nullIf = "NULLIF"

    /// The function with ordinary call syntax called `name`, or nil when it is not on the list.
    static func named(_ name: String) -> WhereFunction? {
        switch name.uppercased() {
        case "CHARACTER_LENGTH": return .charLength
        case "CEIL": return .ceiling
        case "POSITION", "SUBSTRING": return nil  // own syntax
        case let upper: return WhereFunction(rawValue: upper)
        }
    }

    /// How many arguments the function takes.
    var arity: ClosedRange<Int> {
        switch self {
        case .currentDate, .currentTimestamp: return 0...0
        case .upper, .lower, .charLength, .abs, .ceiling, .floor, .log, .log10, .sin, .cos, .tan: return 1...1
        case .round, .truncate: return 1...2
        case .substring: return 2...3
        case .position, .mod, .power, .nullIf: return 2...2
        case .concat, .coalesce: return 2...64
        }
    }
}
