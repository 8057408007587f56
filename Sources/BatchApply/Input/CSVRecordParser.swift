/// Splits CSV text (RFC 4180) into records as it streams from a ``ByteSource``: quoted fields, doubled quotes,
/// CRLF or LF line ends, and line breaks inside quotes.
///
/// Lenient where RFC 4180 is silent: a quote inside an unquoted field is kept as text, and text after a closing
/// quote is appended to the field.
struct CSVRecordParser {
    /// One record: its fields, the line it starts on, and its text without the line end; or, for a record larger
    /// than the limit, only its size (`tooLarge`), its fields and text not kept.
    struct Record {
        var fields: [String]
        var line: Int
        var text: [UInt8]
        var tooLarge: Int? = nil
    }

    /// The file ends inside a quoted field.
    struct UnterminatedQuote: Error {
        var line: Int
        var text: [UInt8]
    }

    private var source: ByteSource
    private let limit: Int
    private(set) var started = false

    /// A parser of `source` whose records may have at most `limit` bytes.
    init(source: ByteSource, limit: Int = InputOptions.defaultMaxRecordSize) {
        self.source = source
        self.limit = limit
    }

    /// The next record, or nil at the end of the file. Blank lines outside quotes are skipped.
    /// - Throws: ``UnterminatedQuote``, or the file's read error.
    mutating func next() throws -> Record? {
        if !started {
            started = true
            try source.skipByteOrderMark()
        }
        while true {
            let line = source.line
            guard try source.peek() != nil else { return nil }
            var fields: [String] = []
            var field: [UInt8] = []
            var fieldLength = 0
            var text: [UInt8] = []
            var inQuotes = false
            var wasQuoted = false
            // Bytes of the record so far; past the limit the state machine runs on to find the record's end, but
            // nothing more is kept.
            var size = 0
            var keep: Bool { size <= limit }
            func append(_ byte: UInt8, toField: Bool) {
                if toField { fieldLength += 1 }
                guard keep else { return }
                text.append(byte)
                if toField { field.append(byte) }
            }
            while true {
                guard let byte = try source.next() else {
                    if inQuotes { throw UnterminatedQuote(line: line, text: text) }
                    break
                }
                size += 1
                if !keep, !text.isEmpty { (fields, field, text) = ([], [], []) }
                if inQuotes {
                    if byte == UInt8(ascii: "\"") {
                        if try source.peek() == UInt8(ascii: "\"") {
                            _ = try source.next()
                            size += 1
                            append(byte, toField: false)
                            append(byte, toField: true)
                        } else {
                            append(byte, toField: false)
                            inQuotes = false
                        }
                    } else {
                        append(byte, toField: true)
                    }
                    continue
                }
                if byte == 0x0A { break }
                if byte == 0x0D {
                    if try source.peek() == 0x0A { _ = try source.next() }
                    break
                }
                switch byte {
                case UInt8(ascii: ","):
                    append(byte, toField: false)
                    if keep { fields.append(String(decoding: field, as: UTF8.self)) }
                    field.removeAll(keepingCapacity: true)
                    fieldLength = 0
                    wasQuoted = false
                case UInt8(ascii: "\"") where fieldLength == 0 && !wasQuoted:
                    append(byte, toField: false)
                    inQuotes = true
                    wasQuoted = true
                default:
                    append(byte, toField: true)
                }
            }
            if !keep { return Record(fields: [], line: line, text: [], tooLarge: size) }
            fields.append(String(decoding: field, as: UTF8.self))
            if fields.count == 1 && fields[0].isEmpty && !wasQuoted { continue }
            return Record(fields: fields, line: line, text: text)
        }
    }
}
