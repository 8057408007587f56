/// Splits CSV text (RFC 4180) into records as it streams from a ``ByteSource``: quoted fields, doubled quotes,
/// CRLF or LF line ends, and line breaks inside quotes.
///
/// Lenient where RFC 4180 is silent: a quote inside an unquoted field is kept as text, and text after a closing
/// quote is appended to the field.
struct CSVRecordParser {
    /// One record: its fields, the line it starts on, and its text without the line end.
    struct Record {
        var fields: [String]
        var line: Int
        var text: [UInt8]
    }

    /// The file ends inside a quoted field.
    struct UnterminatedQuote: Error {
        var line: Int
        var text: [UInt8]
    }

    private var source: ByteSource
    private(set) var started = false

    init(source: ByteSource) { self.source = source }

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
            var text: [UInt8] = []
            var inQuotes = false
            var wasQuoted = false
            while true {
                guard let byte = try source.next() else {
                    if inQuotes { throw UnterminatedQuote(line: line, text: text) }
                    break
                }
                if inQuotes {
                    text.append(byte)
                    if byte == UInt8(ascii: "\"") {
                        if try source.peek() == UInt8(ascii: "\"") {
                            _ = try source.next()
                            text.append(byte)
                            field.append(byte)
                        } else {
                            inQuotes = false
                        }
                    } else {
                        field.append(byte)
                    }
                    continue
                }
                if byte == 0x0A { break }
                if byte == 0x0D {
                    if try source.peek() == 0x0A { _ = try source.next() }
                    break
                }
                text.append(byte)
                switch byte {
                case UInt8(ascii: ","):
                    fields.append(String(decoding: field, as: UTF8.self))
                    field.removeAll(keepingCapacity: true)
                    wasQuoted = false
                case UInt8(ascii: "\"") where field.isEmpty && !wasQuoted:
                    inQuotes = true
                    wasQuoted = true
                default:
                    field.append(byte)
                }
            }
            fields.append(String(decoding: field, as: UTF8.self))
            if fields.count == 1 && fields[0].isEmpty && !wasQuoted { continue }
            return Record(fields: fields, line: line, text: text)
        }
    }
}
