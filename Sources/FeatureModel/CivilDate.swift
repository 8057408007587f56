/// Calendar arithmetic for the wire's epoch times, without Foundation's calendars.
package enum CivilDate {
    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    package static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Epoch milliseconds of midnight UTC on a proleptic Gregorian date.
    package static func epochMilliseconds(year: Int, month: Int, day: Int) -> Int64 {
        daysSinceEpoch(year: year, month: month, day: day) * 86_400_000
    }
}
