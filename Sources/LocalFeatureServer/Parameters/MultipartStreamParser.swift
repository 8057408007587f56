import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits a `multipart/form-data` body (RFC 7578, framed as RFC 2046 multipart) into part headers and part body bytes
/// as the body streams in; a delimiter may be split across any two chunks.
///
/// Pull-style: ``next(in:)`` consumes a chunk up to its next ``Event`` and returns it, or nil once the chunk is used up.
/// The parser holds one header line and at most a delimiter's length of undecided body bytes, never a part body: part
/// bodies come out as slices of the chunks fed in.
///
/// The framing, as the server has always accepted it:
/// - a preamble is skipped up to the first `--boundary`, which must end its line (CRLF);
/// - a part is header lines `Name: value` CRLF (names are RFC 9110 tokens; a value's leading blanks are dropped, the
///   rest kept as is; folded continuation lines are refused), an empty line, then its body up to CRLF `--boundary`;
/// - after such a delimiter, CRLF starts the next part and `--` closes the body; whatever follows is the epilogue.
///   `--boundary-` followed by anything else leaves the body unclosed (``isClosed`` stays false).
///
/// Not thread-safe: one request's task drives it.
struct MultipartStreamParser {
    /// What the parser found.
    enum Event: Equatable {
        /// One header line of the current part (`value` is empty when it is not UTF-8).
        case header(name: String, value: String)
        /// The next bytes of the current part's body (any part may arrive in any number of these).
        case body(ByteBuffer)
        /// The current part's body ended at a delimiter.
        case partEnd
    }

    /// Why the body cannot be multipart: once thrown, every later call throws it again.
    enum Failure: Error, Equatable {
        /// The framing is broken: no CRLF after a delimiter, a header line that is not `token: value` CRLF.
        case syntax
        /// A header name holds a byte outside ASCII.
        case nonASCIIHeaderName
        /// One part's header lines are longer than the parser's `maximumHeaderSize`.
        case headersTooLarge
    }

    private enum State {
        /// Looking for the first `--boundary`; `matched` bytes of it seen.
        case preamble(matched: Int)
        /// After the first `--boundary`: CRLF must follow.
        case firstDelimiterEnd(sawCR: Bool)
        case headerName
        case headerValue
        /// CR after a header value: LF must follow.
        case headerLineEnd
        /// CR of the empty line that ends the headers: LF must follow.
        case headersEnd
        /// In a part body; `matched` bytes of CRLF `--boundary` seen and not yet reported as body.
        case body(matched: Int)
        /// A whole delimiter after a part body: the next byte ends the part and decides what follows.
        case delimiterEnd
        /// CR after a delimiter: LF must follow, then the next part's headers.
        case nextPartCR
        /// One `-` after a delimiter.
        case closingDash
        case epilogue
        /// `--boundary-` and something else: ignored to the end, the body is never closed.
        case unclosed
        case failed(Failure)
    }

    private let dashBoundary: [UInt8]
    private let delimiter: [UInt8]
    /// For each prefix of ``delimiter``, the length of its longest proper prefix that is also its suffix (KMP).
    private let delimiterFallback: [Int]
    private let dashBoundaryFallback: [Int]
    private let maximumHeaderSize: Int
    private var state = State.preamble(matched: 0)
    private var headerSize = 0
    private var name: [UInt8] = []
    private var value: [UInt8] = []

    /// A parser for parts separated by `boundary` (the Content-Type's parameter, unquoted; not empty).
    /// - Parameter maximumHeaderSize: the most bytes of one part's header lines, CRLFs included.
    init(boundary: String, maximumHeaderSize: Int = .max) {
        dashBoundary = Array("--\(boundary)".utf8)
        delimiter = Array("\r\n--\(boundary)".utf8)
        delimiterFallback = Self.fallback(delimiter)
        dashBoundaryFallback = Self.fallback(dashBoundary)
        self.maximumHeaderSize = maximumHeaderSize
    }

    /// Whether the closing delimiter (`--boundary--`) has been read.
    var isClosed: Bool {
        if case .epilogue = state { return true }
        return false
    }

    /// Reads `buffer` up to the next event, moving its reader index past what was read.
    /// - Returns: the event, or nil when `buffer` has no readable bytes left (the parser keeps its place for the next chunk).
    /// - Throws: ``Failure`` when the body is not multipart; the parser is then finished.
    mutating func next(in buffer: inout ByteBuffer) throws(Failure) -> Event? {
        while buffer.readableBytes > 0 {
            switch state {
            case .body(let matched):
                if let event = body(in: &buffer, matched: matched) { return event }
            case .delimiterEnd:
                switch buffer.readInteger(as: UInt8.self)! {
                case UInt8(ascii: "\r"): state = .nextPartCR
                case UInt8(ascii: "-"): state = .closingDash
                default: state = .failed(.syntax)
                }
                return .partEnd
            case .epilogue, .unclosed:
                buffer.moveReaderIndex(to: buffer.writerIndex)
            case .failed(let failure):
                throw failure
            default:
                if let event = try framing(buffer.readInteger(as: UInt8.self)!) { return event }
            }
        }
        if case .failed(let failure) = state { throw failure }
        return nil
    }

    /// Body bytes up to where a delimiter starts (or may start, at the end of `buffer`), or the next byte of a
    /// delimiter begun in an earlier chunk.
    private mutating func body(in buffer: inout ByteBuffer, matched: Int) -> Event? {
        guard matched > 0 else {
            let (length, found) = Self.search(delimiter, in: buffer)
            guard length == 0 else { return .body(buffer.readSlice(length: length)!) }
            buffer.moveReaderIndex(forwardBy: found)
            state = found == delimiter.count ? .delimiterEnd : .body(matched: found)
            return nil
        }
        let byte = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self)!
        guard byte == delimiter[matched] else {
            // Not a delimiter after all: the bytes it cannot still begin are body, and `byte` is looked at again.
            let kept = delimiterFallback[matched - 1]
            state = .body(matched: kept)
            return .body(ByteBuffer(bytes: delimiter[0..<(matched - kept)]))
        }
        buffer.moveReaderIndex(forwardBy: 1)
        state = matched + 1 == delimiter.count ? .delimiterEnd : .body(matched: matched + 1)
        return nil
    }

    /// Where `delimiter` (which starts with CR) first occurs in `buffer`'s readable bytes, or where a prefix of it
    /// ends them.
    /// - Returns: the bytes before it, and how many of its bytes are there (0 when there is none).
    private static func search(_ delimiter: [UInt8], in buffer: ByteBuffer) -> (before: Int, found: Int) {
        buffer.withUnsafeReadableBytes { bytes in
            delimiter.withUnsafeBytes { pattern in
                guard let base = bytes.baseAddress, let first = pattern.baseAddress else { return (bytes.count, 0) }
                var from = 0
                while from < bytes.count, let carriageReturn = memchr(base + from, 0x0D, bytes.count - from) {
                    let at = base.distance(to: UnsafeRawPointer(carriageReturn))
                    let available = min(pattern.count, bytes.count - at)
                    if memcmp(base + at, first, available) == 0 { return (at, available) }
                    from = at + 1
                }
                return (bytes.count, 0)
            }
        }
    }

    /// One byte outside part bodies: the preamble, the first delimiter's line end, header lines, the closing dashes.
    private mutating func framing(_ byte: UInt8) throws(Failure) -> Event? {
        switch state {
        case .preamble(let matched):
            var matched = matched
            while matched > 0 && byte != dashBoundary[matched] { matched = dashBoundaryFallback[matched - 1] }
            if byte == dashBoundary[matched] { matched += 1 }
            state = matched == dashBoundary.count ? .firstDelimiterEnd(sawCR: false) : .preamble(matched: matched)
        case .firstDelimiterEnd(let sawCR):
            switch (sawCR, byte) {
            case (false, UInt8(ascii: "\r")): state = .firstDelimiterEnd(sawCR: true)
            case (true, UInt8(ascii: "\n")): startPart()
            default: try fail(.syntax)
            }
        case .nextPartCR:
            guard byte == UInt8(ascii: "\n") else { try fail(.syntax) }
            startPart()
        case .closingDash:
            state = byte == UInt8(ascii: "-") ? .epilogue : .unclosed
        default:
            return try header(byte)
        }
        return nil
    }

    /// One byte of a part's header lines.
    private mutating func header(_ byte: UInt8) throws(Failure) -> Event? {
        headerSize += 1
        guard headerSize <= maximumHeaderSize else { try fail(.headersTooLarge) }
        switch state {
        case .headerName:
            if byte == UInt8(ascii: ":") && !name.isEmpty {
                state = .headerValue
            } else if byte == UInt8(ascii: "\r") && name.isEmpty {
                state = .headersEnd
            } else if Self.isToken(byte) {
                name.append(byte)
            } else {
                try fail(byte >= 0x80 ? .nonASCIIHeaderName : .syntax)
            }
        case .headerValue:
            switch byte {
            case UInt8(ascii: "\r"): state = .headerLineEnd
            case UInt8(ascii: " ") where value.isEmpty, UInt8(ascii: "\t") where value.isEmpty: break
            default: value.append(byte)
            }
        case .headerLineEnd:
            guard byte == UInt8(ascii: "\n") else { try fail(.syntax) }
            let event = Event.header(name: String(decoding: name, as: UTF8.self), value: String(validating: value, as: UTF8.self) ?? "")
            name.removeAll(keepingCapacity: true)
            value.removeAll(keepingCapacity: true)
            state = .headerName
            return event
        default:
            guard byte == UInt8(ascii: "\n") else { try fail(.syntax) }
            state = .body(matched: 0)
        }
        return nil
    }

    private mutating func startPart() {
        headerSize = 0
        name.removeAll(keepingCapacity: true)
        value.removeAll(keepingCapacity: true)
        state = .headerName
    }

    private mutating func fail(_ failure: Failure) throws(Failure) -> Never {
        state = .failed(failure)
        throw failure
    }

    /// Whether `byte` may be in a header name: an RFC 9110 `tchar`.
    static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "!"), UInt8(ascii: "#")...UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        case UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// The KMP failure function of `pattern`: for each prefix length `n` > 0, at index `n - 1`, the length of the
    /// longest proper prefix of `pattern[0..<n]` that is also its suffix.
    private static func fallback(_ pattern: [UInt8]) -> [Int] {
        var table = [Int](repeating: 0, count: pattern.count)
        var length = 0
        for index in pattern.indices.dropFirst() {
            while length > 0 && pattern[index] != pattern[length] { length = table[length - 1] }
            if pattern[index] == pattern[length] { length += 1 }
            table[index] = length
        }
        return table
    }
}
