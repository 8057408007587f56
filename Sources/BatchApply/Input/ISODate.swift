import FeatureModel

/// Reads ISO-8601 dates and date-times into epoch milliseconds (UTC), as `esriFieldTypeDate` stores them.
///
/// Accepted: `2024-05-01`, `2024-05-01T12:30`, `2024-05-01T12:30:00`, with fractional seconds, a space instead
/// of `T`, and `Z`, `±HH:MM`, `±HHMM` or `±HH`. A date-time without an offset is taken as UTC. Pure.
enum ISODate {
    /// Epoch milliseconds of `text`, or nil when it is not one of the accepted forms or not a real date.
    package static func epochMilliseconds(_ text: String) -> Int64? {
        var scanner = DigitScanner(bytes: Array(text.utf8))
        guard let year = scanner.digits(4), scanner.skip("-"), let month = scanner.digits(2), scanner.skip("-"),
            let day = scanner.digits(2), (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var milliseconds = CivilDate.epochMilliseconds(year: year, month: month, day: day)
        if scanner.atEnd { return milliseconds }
        guard scanner.skip("T") || scanner.skip("t") || scanner.skip(" "), let hour = scanner.digits(2), scanner.skip(":"),
            let minute = scanner.digits(2), hour < 24, minute < 60
        else { return nil }
        milliseconds += Int64(hour) * 3_600_000 + Int64(minute) * 60_000
        if scanner.skip(":") {
            guard let second = scanner.digits(2), second <= 60 else { return nil }
            milliseconds += Int64(second) * 1000
            if scanner.skip(".") || scanner.skip(",") {
                var scale: Int64 = 100
                var any = false
                while let digit = scanner.digits(1) {
                    milliseconds += Int64(digit) * scale
                    scale /= 10
                    any = true
                }
                guard any else { return nil }
            }
        }
        if scanner.atEnd || scanner.skip("Z") || scanner.skip("z") { return scanner.atEnd ? milliseconds : nil }
        let sign: Int64
        if scanner.skip("+") { sign = 1 } else if scanner.skip("-") { sign = -1 } else { return nil }
        guard let offsetHours = scanner.digits(2), offsetHours < 24 else { return nil }
        var offsetMinutes = 0
        if scanner.skip(":") {
            guard let minutes = scanner.digits(2) else { return nil }
            offsetMinutes = minutes
        } else if let minutes = scanner.digits(2) {
            offsetMinutes = minutes
        }
        guard offsetMinutes < 60, scanner.atEnd else { return nil }
        // Local time minus its offset is UTC.
        return milliseconds - sign * (Int64(offsetHours) * 3_600_000 + Int64(offsetMinutes) * 60_000)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private struct DigitScanner {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index >= bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(character.value) else { return false }
            index += 1
            return true
        }

        mutating func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for offset in 0..<count {
                let byte = bytes[index + offset]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
    }
}
