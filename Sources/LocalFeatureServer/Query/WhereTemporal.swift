import FeatureModel

/// Date, timestamp and interval literals of the `where` dialect, as epoch milliseconds (UTC), the unit Date fields
/// are stored in. Pure functions.
enum WhereTemporal {
    /// The units of `INTERVAL 'n' <unit>`.
    enum IntervalUnit: String, Sendable, CaseIterable {
        case day = "DAY"
        case hour = "HOUR"
        case minute = "MINUTE"
        case second = "SECOND"

        var milliseconds: Double {
            switch self {
            case .day: return 86_400_000
            case .hour: return 3_600_000
            case .minute: return 60_000
            case .second: return 1_000
            }
        }
    }

    static let millisecondsPerDay: Int64 = 86_400_000

    /// `yyyy-mm-dd` as midnight UTC, or nil when malformed or not a calendar date.
    static func date(_ text: String) -> Int64? {
        let parts = text.trimmed.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        return CivilDate.epochMilliseconds(year: year, month: month, day: day)
    }

    /// `yyyy-mm-dd HH:MI:SS[.fff]` (or `yyyy-mm-dd` alone, or a `T` between date and time) as UTC.
    static func timestamp(_ text: String) -> Int64? {
        let trimmed = text.trimmed
        let pieces = trimmed.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "T" })
        guard let first = pieces.first, let day = date(String(first)) else { return nil }
        guard pieces.count == 2 else { return day }
        let clock = pieces[1].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 2 || clock.count == 3, clock[0].count == 2, clock[1].count == 2,
            let hours = Int(clock[0]), let minutes = Int(clock[1]), (0...23).contains(hours), (0...59).contains(minutes),
            clock[0].allSatisfy(\.isASCIIDigit), clock[1].allSatisfy(\.isASCIIDigit)
        else { return nil }
        var milliseconds = Int64(hours * 3_600_000 + minutes * 60_000)
        if clock.count == 3 {
            let secondParts = clock[2].split(separator: ".", omittingEmptySubsequences: false)
            guard secondParts[0].count == 2, secondParts[0].allSatisfy(\.isASCIIDigit), let seconds = Int(secondParts[0]), (0...59).contains(seconds)
            else { return nil }
            milliseconds += Int64(seconds * 1_000)
            if secondParts.count == 2 {
                let fraction = secondParts[1]
                guard (1...9).contains(fraction.count), fraction.allSatisfy(\.isASCIIDigit) else { return nil }
                let padded = String((fraction + "00").prefix(3))
                milliseconds += Int64(padded) ?? 0
            } else if secondParts.count > 2 {
                return nil
            }
        }
        return day + milliseconds
    }

    /// `n` `unit`s in milliseconds (`n` may be negative or decimal), or nil when `n` is not a number.
    static func interval(_ text: String, unit: IntervalUnit) -> Int64? {
        guard let amount = Double(text.trimmed), amount.isFinite else { return nil }
        let milliseconds = (amount * unit.milliseconds).rounded()
        guard abs(milliseconds) < 9.0e15 else { return nil }
        return Int64(milliseconds)
    }

    /// Midnight UTC of the day holding `milliseconds`.
    static func startOfDay(_ milliseconds: Int64) -> Int64 {
        var remainder = milliseconds % millisecondsPerDay
        if remainder < 0 { remainder += millisecondsPerDay }
        return milliseconds - remainder
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
