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
        for (index, request) in batch.requests.enumerated() {
            let last = index == batch.requests.count - 1
            let started = request.started.map { clock.wallMicroseconds + microseconds(clock.anchor.duration(to: $0)) } ?? 0
            let fields = Fields(
                timestamp: started, status: request.status, failed: request.failed,
                duration: microseconds(request.duration), server: request.serverDuration.map(microseconds),
                sent: request.bytesSent, received: request.bytesReceived,
                edits: last ? batch.edits : 0, editsFailed: last ? batch.editsFailed : 0,
                editsUnknown: last ? batch.editsUnknown : 0, retries: last ? batch.retries : 0)
            switch format {
            case .csv: csv(fields, labels: batch.labels, to: &bytes)
            case .json: json(fields, labels: batch.labels, to: &bytes)
            }
        }
    }

    struct Fields {
        var timestamp: Int64
        var status: Int
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

    static func csv(_ f: Fields, labels: RawSampleLabels, to bytes: inout [UInt8]) {
        decimal(f.timestamp, places: 6, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        bytes += labels.csvNames
        status(f.status, to: &bytes)
        bytes += (f.failed ? ",1," : ",0,").utf8
        decimal(f.duration, places: 3, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        if let server = f.server { decimal(server, places: 3, to: &bytes) }
        bytes.append(UInt8(ascii: ","))
        decimal(f.sent, places: 0, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        decimal(f.received, places: 0, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        decimal(Int64(f.edits), places: 0, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        decimal(Int64(f.editsFailed), places: 0, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        decimal(Int64(f.editsUnknown), places: 0, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        decimal(Int64(f.retries), places: 0, to: &bytes)
        bytes += labels.csvTags
    }

    static func json(_ f: Fields, labels: RawSampleLabels, to bytes: inout [UInt8]) {
        bytes += #"{"timestamp":"#.utf8
        decimal(f.timestamp, places: 6, to: &bytes)
        bytes += labels.jsonNames
        bytes += #","status":""#.utf8
        status(f.status, to: &bytes)
        bytes += (f.failed ? #"","failed":true,"duration_ms":"# : #"","failed":false,"duration_ms":"#).utf8
        decimal(f.duration, places: 3, to: &bytes)
        bytes += #","server_ms":"#.utf8
        if let server = f.server { decimal(server, places: 3, to: &bytes) } else { bytes += "null".utf8 }
        bytes += #","bytes_sent":"#.utf8
        decimal(f.sent, places: 0, to: &bytes)
        bytes += #","bytes_received":"#.utf8
        decimal(f.received, places: 0, to: &bytes)
        bytes += #","edits":"#.utf8
        decimal(Int64(f.edits), places: 0, to: &bytes)
        bytes += #","edits_failed":"#.utf8
        decimal(Int64(f.editsFailed), places: 0, to: &bytes)
        bytes += #","edits_unknown":"#.utf8
        decimal(Int64(f.editsUnknown), places: 0, to: &bytes)
        bytes += #","retries":"#.utf8
        decimal(Int64(f.retries), places: 0, to: &bytes)
        bytes += labels.jsonTags
    }

    /// The `status` tag of a request: its HTTP status, or `interrupted` (``RequestSample/statusTag(_:)``).
    static func status(_ status: Int, to bytes: inout [UInt8]) {
        if status == RequestSample.interrupted {
            bytes += "interrupted".utf8
        } else {
            decimal(Int64(status), places: 0, to: &bytes)
        }
    }

    static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    /// `value` / 10^places in decimal, with exactly `places` (at most 18) digits after the point; no allocation.
    static func decimal(_ value: Int64, places: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // 20 digits hold any UInt64; the digits are made from the last, then appended in order.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var count = 0
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0 || count <= places
            var index = count - 1
            while index >= 0 {
                if places > 0 && index == places - 1 { bytes.append(UInt8(ascii: ".")) }
                bytes.append(buffer[index])
                index -= 1
            }
        }
    }

    /// A CSV field: as it is, or quoted (quotes doubled) when it holds a comma, a quote or a line break. A field that
    /// begins with `=`, `+`, `-`, `@`, a tab or a carriage return (a scenario, operation or tag a spreadsheet would
    /// run as a formula) is quoted with a `'` before it, as OWASP's CSV-injection advice has it.
    static func csvText(_ text: String, to bytes: inout [UInt8]) {
        let formula =
            text.utf8.first.map { [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D].contains($0) } ?? false
        let needsQuotes = formula || text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else {
            bytes += text.utf8
            return
        }
        bytes.append(UInt8(ascii: "\""))
        if formula { bytes.append(UInt8(ascii: "'")) }
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
