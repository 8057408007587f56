/// The lines of ``RawSampleDestination``: one per request, formatted by hand into bytes (the background writer
/// formats tens of thousands a second on cores the generator shares).
enum RawSampleLine {
    /// Appends a line for each request of `batch` to `bytes`. The iteration's edits and retries go on its last
    /// request's line and 0 on the others (retries and pages of the same iteration), so that each column sums to
    /// the report's total.
    static func append(
        _ batch: RawSampleBatch, format: RawSampleDestination.Format, to bytes: inout [UInt8],
        clock: (anchor: ContinuousClock.Instant, wallMicroseconds: Int64)
    ) {
        let sortedTags = batch.tags.sorted { $0.key < $1.key }
        let requests = batch.sample.requests
        for (index, request) in requests.enumerated() {
            let last = index == requests.count - 1
            let started = request.started.map { clock.wallMicroseconds + microseconds(clock.anchor.duration(to: $0)) } ?? 0
            let fields = Fields(
                timestamp: started, status: RequestSample.statusTag(request.status), failed: request.failed,
                duration: microseconds(request.duration), server: request.serverDuration.map(microseconds),
                sent: request.bytesSent, received: request.bytesReceived,
                edits: last ? batch.sample.editsApplied : 0, editsFailed: last ? batch.sample.editsFailed : 0,
                editsUnknown: last ? batch.sample.editsUnknown : 0, retries: last ? batch.sample.retries : 0)
            switch format {
            case .csv: csv(fields, batch: batch, tags: sortedTags, to: &bytes)
            case .json: json(fields, batch: batch, tags: sortedTags, to: &bytes)
            }
        }
    }

    struct Fields {
        var timestamp: Int64
        var status: String
        var failed: Bool
        var duration: Int64
        var server: Int64?
        var sent: Int64
        var received: Int64
        var edits: Int
        var editsFailed: Int
        var editsUnknown: Int
        var retries: Int
    }

    static func csv(_ f: Fields, batch: RawSampleBatch, tags: [(key: String, value: String)], to bytes: inout [UInt8]) {
        decimal(f.timestamp, places: 6, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        csvText(batch.scenario, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        csvText(batch.operation, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        bytes += f.status.utf8
        bytes += (f.failed ? ",1," : ",0,").utf8
        decimal(f.duration, places: 3, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        if let server = f.server { decimal(server, places: 3, to: &bytes) }
        for value in [f.sent, f.received, Int64(f.edits), Int64(f.editsFailed), Int64(f.editsUnknown), Int64(f.retries)] {
            bytes.append(UInt8(ascii: ","))
            decimal(value, places: 0, to: &bytes)
        }
        bytes.append(UInt8(ascii: ","))
        // k6's extra_tags form: key=value pairs joined by &, each part percent-encoded where it holds & = % or a quote.
        var text = ""
        for (index, tag) in tags.enumerated() {
            if index > 0 { text += "&" }
            text += tagPart(tag.key) + "=" + tagPart(tag.value)
        }
        csvText(text, to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
    }

    static func json(_ f: Fields, batch: RawSampleBatch, tags: [(key: String, value: String)], to bytes: inout [UInt8]) {
        bytes += #"{"timestamp":"#.utf8
        decimal(f.timestamp, places: 6, to: &bytes)
        bytes += #","scenario":"#.utf8
        jsonText(batch.scenario, to: &bytes)
        bytes += #","operation":"#.utf8
        jsonText(batch.operation, to: &bytes)
        bytes += #","status":"#.utf8
        jsonText(f.status, to: &bytes)
        bytes += (f.failed ? #","failed":true,"duration_ms":"# : #","failed":false,"duration_ms":"#).utf8
        decimal(f.duration, places: 3, to: &bytes)
        bytes += #","server_ms":"#.utf8
        if let server = f.server { decimal(server, places: 3, to: &bytes) } else { bytes += "null".utf8 }
        let counts: [(String, Int64)] = [
            ("bytes_sent", f.sent), ("bytes_received", f.received), ("edits", Int64(f.edits)), ("edits_failed", Int64(f.editsFailed)),
            ("edits_unknown", Int64(f.editsUnknown)), ("retries", Int64(f.retries)),
        ]
        for (name, value) in counts {
            bytes += #",""#.utf8
            bytes += name.utf8
            bytes += #"":"#.utf8
            decimal(value, places: 0, to: &bytes)
        }
        bytes += #","tags":{"#.utf8
        for (index, tag) in tags.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            jsonText(tag.key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            jsonText(tag.value, to: &bytes)
        }
        bytes += "}}\n".utf8
    }

    static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    /// `value` / 10^places in decimal, with exactly `places` digits after the point.
    static func decimal(_ value: Int64, places: Int, to bytes: inout [UInt8]) {
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var digits: [UInt8] = []
        repeat {
            digits.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0 || digits.count <= places
        for (index, digit) in digits.reversed().enumerated() {
            if places > 0 && index == digits.count - places { bytes.append(UInt8(ascii: ".")) }
            bytes.append(digit)
        }
    }

    /// A CSV field: as it is, or quoted (quotes doubled) when it holds a comma, a quote or a line break.
    static func csvText(_ text: String, to bytes: inout [UInt8]) {
        let needsQuotes = text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else {
            bytes += text.utf8
            return
        }
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") { bytes.append(byte) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A JSON string (RFC 8259 escapes).
    static func jsonText(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += #"\""#.utf8
            case UInt8(ascii: "\\"): bytes += #"\\"#.utf8
            case 0x0A: bytes += #"\n"#.utf8
            case 0x0D: bytes += #"\r"#.utf8
            case 0x09: bytes += #"\t"#.utf8
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += #"\u00"#.utf8
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A tag's key or value with `%`, `&`, `=` and line breaks percent-encoded.
    static func tagPart(_ text: String) -> String {
        guard text.contains(where: { "%&=\n\r".contains($0) }) else { return text }
        var out = ""
        for character in text {
            switch character {
            case "%": out += "%25"
            case "&": out += "%26"
            case "=": out += "%3D"
            case "\n": out += "%0A"
            case "\r": out += "%0D"
            default: out.append(character)
            }
        }
        return out
    }
}
