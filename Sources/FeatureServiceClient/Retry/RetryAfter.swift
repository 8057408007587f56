import FeatureModel

/// Parses the `Retry-After` header (RFC 9110 §10.2.3): delta-seconds (`120`) or an HTTP-date
/// (`Wed, 21 Oct 2015 07:28:00 GMT`, also the obsolete RFC 850 and asctime forms).
///
/// Pure: an HTTP-date becomes a delay by subtracting a reference time, preferably the response's own `Date`
/// header (the server's clock, so the two clocks never need to agree), otherwise the caller's wall clock.
package enum RetryAfter {
    /// The delay `value` asks for, or `nil` when it is malformed. Dates in the past give zero.
    /// - Parameters:
    ///   - value: The header value.
    ///   - responseDate: The response's `Date` header, used as "now" for an HTTP-date.
    ///   - now: Seconds since 1970 on the caller's wall clock, used when there is no usable `Date` header.
    /// - Returns: The delay, or `nil`.
    package static func delay(_ value: String, responseDate: String? = nil, now: Int64? = nil) -> Duration? {
        let text = value.trimmingHTTPWhitespace()
        guard !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard let seconds = Int64(text) else { return .seconds(Int64.max / 1_000_000_000) }  // absurdly large: the budget decides
            return .seconds(seconds)
        }
        guard let date = httpDate(text) else { return nil }
        guard let reference = responseDate.flatMap(httpDate) ?? now else { return nil }
        return .seconds(max(0, date - reference))
    }

    /// Seconds since 1970 (UTC) of an HTTP-date in IMF-fixdate, RFC 850 or asctime form, or `nil`.
    package static func httpDate(_ text: String) -> Int64? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT → [Sun, 06, Nov, 1994, 08:49:37, GMT]
        if words.count == 6, words[5] == "GMT", let day = Int(words[1]), let month = month(words[2]), let year = Int(words[3]) {
            return epoch(year: year, month: month, day: day, time: words[4])
        }
        // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT → [Sunday, 06-Nov-94, 08:49:37, GMT]
        if words.count == 4, words[3] == "GMT" {
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3, let day = Int(parts[0]), let month = month(parts[1]), let shortYear = Int(parts[2]) else { return nil }
            let year = shortYear < 100 ? (shortYear < 70 ? 2000 + shortYear : 1900 + shortYear) : shortYear
            return epoch(year: year, month: month, day: day, time: words[2])
        }
        // asctime: Sun Nov  6 08:49:37 1994 → [Sun, Nov, 6, 08:49:37, 1994]
        if words.count == 5, let month = month(words[1]), let day = Int(words[2]), let year = Int(words[4]) {
            return epoch(year: year, month: month, day: day, time: words[3])
        }
        return nil
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func month(_ name: String) -> Int? {
        months.firstIndex(of: name).map { $0 + 1 }
    }

    private static func epoch(year: Int, month: Int, day: Int, time: String) -> Int64? {
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (1...31).contains(day), (0...23).contains(clock[0]), (0...59).contains(clock[1]),
            (0...60).contains(clock[2])
        else { return nil }
        return CivilDate.daysSinceEpoch(year: year, month: month, day: day) * 86_400 + Int64(clock[0] * 3600 + clock[1] * 60 + clock[2])
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    func trimmingHTTPWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}

extension FeatureServiceError {
    /// The delay the failed response's `Retry-After` header asks for (an HTTP-date read against its `Date` header),
    /// or `nil` when there was no response, no header, or a malformed one.
    var retryAfterDelay: Duration? {
        response?.retryAfter.flatMap { RetryAfter.delay($0, responseDate: response?.date) }
    }
}
