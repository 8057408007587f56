/// Finds bytes outside ASCII in the header names of a multipart body, as the body streams in.
///
/// MultipartKit 4.7.1 looks every header-name byte up in a 128-entry table, so a single non-ASCII byte there traps
/// the whole server. Header names are ASCII tokens by RFC 7578/9110, so such a body is malformed: this screen runs
/// over each chunk before the parser does, and the body is answered with a 400. Header values (a UTF-8 filename) and
/// part bodies are not restricted.
struct MultipartHeaderScreen {
    private enum State {
        /// In a part body (or the preamble), matching `\r\n--boundary`; the index is how much has matched.
        case body(matched: Int)
        /// Right after a delimiter: `--` closes the body, anything else runs to the end of the line.
        case afterDelimiter(dashes: Int)
        /// Skipping the rest of the delimiter line.
        case delimiterLine
        /// In a part's header lines.
        case headers(inName: Bool, lineIsEmpty: Bool)
        /// After the closing delimiter: anything goes.
        case epilogue
    }

    private let delimiter: [UInt8]
    // The body may begin with `--boundary` directly, as if a CRLF had been matched.
    private var state = State.body(matched: 2)

    init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// Scans the next chunk of the body.
    /// - Returns: false when a header name holds a byte outside ASCII.
    mutating func accepts(_ bytes: some Sequence<UInt8>) -> Bool {
        for byte in bytes {
            switch state {
            case .body(let matched):
                if byte == delimiter[matched] {
                    state = matched + 1 == delimiter.count ? .afterDelimiter(dashes: 0) : .body(matched: matched + 1)
                } else {
                    // The delimiter starts with CR and has no other CR, so a mismatch can only restart at a CR.
                    state = .body(matched: byte == delimiter[0] ? 1 : 0)
                }
            case .afterDelimiter(let dashes):
                if byte == UInt8(ascii: "-") {
                    state = dashes == 1 ? .epilogue : .afterDelimiter(dashes: 1)
                } else {
                    state = byte == UInt8(ascii: "\n") ? .headers(inName: true, lineIsEmpty: true) : .delimiterLine
                }
            case .delimiterLine:
                if byte == UInt8(ascii: "\n") { state = .headers(inName: true, lineIsEmpty: true) }
            case .headers(let inName, let lineIsEmpty):
                switch byte {
                case UInt8(ascii: "\n"):
                    state = lineIsEmpty ? .body(matched: 0) : .headers(inName: true, lineIsEmpty: true)
                case UInt8(ascii: "\r"):
                    break
                case UInt8(ascii: ":") where inName:
                    state = .headers(inName: false, lineIsEmpty: false)
                default:
                    if inName && byte >= 0x80 { return false }
                    state = .headers(inName: inName, lineIsEmpty: false)
                }
            case .epilogue:
                return true
            }
        }
        return true
    }
}
