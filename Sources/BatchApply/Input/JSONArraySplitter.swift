import FeatureModel

/// Cuts one large JSON document into its records without parsing it whole: the elements of the arrays under
/// chosen member names (`features`, `adds`…), each as its own bytes with the line it starts on.
///
/// The document is an object (`{"features": [ … ], …}`) or an array of objects (`[{"id": 0, "adds": [ … ]}, …]`,
/// service-level edits). Other members of those objects come out whole as ``Event/member(key:value:layer:)``.
/// Only strings, escapes and bracket depth are tracked, so an element with bad JSON inside still comes out as one
/// element (its decoder reports it) and the next one is found. Memory: one chunk plus the largest element.
struct JSONArraySplitter {
    /// One piece of the document.
    enum Event: Equatable {
        /// A member of the root object (layer nil) or of the root array's object number `layer`, that is not a
        /// split array.
        case member(key: String, value: [UInt8], layer: Int?)
        /// An element of a split array, with the 1-based line of its first byte.
        case element(key: String, bytes: [UInt8], line: Int, layer: Int?)
        /// A split array begins (so an empty one is known to be there).
        case arrayStart(key: String, layer: Int?)
        /// An element of a split array larger than the record size limit, `byteCount` bytes long, starting on
        /// `line`: skipped whole, its bytes never held.
        case oversized(key: String, byteCount: Int, line: Int, layer: Int?)
    }

    /// The document's structure is broken where records cannot be told apart any more.
    struct SyntaxError: Error, Equatable {
        var reason: String
        var line: Int
    }

    private enum State {
        case start
        case object(layer: Int?, first: Bool)
        case array(key: String, layer: Int?, first: Bool)
        case rootArray(index: Int, first: Bool)
        case end
        case finished
    }

    private var source: ByteSource
    private let splitKeys: Set<String>
    private let captureElements: Bool
    /// The most bytes one element or member may have; see ``InputOptions/maxRecordSize``.
    private let limit: Int
    private var state = State.start
    /// Whether the root is an array (service-level edits); known after the first event.
    private(set) var rootIsArray = false

    /// A splitter over `source`.
    /// - Parameters:
    ///   - splitKeys: the member names whose array values are split into elements.
    ///   - captureElements: false to skip elements without copying them (a first pass that only wants members;
    ///     elements then come out with empty bytes).
    ///   - limit: the most bytes one element or member may have; a larger element comes out as
    ///     ``Event/oversized(key:byteCount:line:layer:)``, a larger member is a ``SyntaxError``.
    init(source: ByteSource, splitKeys: Set<String>, captureElements: Bool = true, limit: Int = InputOptions.defaultMaxRecordSize) {
        self.source = source
        self.splitKeys = splitKeys
        self.captureElements = captureElements
        self.limit = limit
    }

    /// The next member or element, or nil after the end of the document.
    /// - Throws: ``SyntaxError`` when the structure is broken, or the file's read error.
    mutating func next() throws -> Event? {
        while true {
            let event: Event?
            switch state {
            case .start:
                try startDocument()
                event = nil
            case .object(let layer, let first):
                event = try nextMember(layer: layer, first: first)
            case .array(let key, let layer, let first):
                event = try nextElement(of: key, layer: layer, first: first)
            case .rootArray(let index, let first):
                try nextObject(index: index, first: first)
                event = nil
            case .end:
                try skipWhitespace()
                guard try source.peek() == nil else { throw broken("text after the end of the JSON document") }
                state = .finished
                event = nil
            case .finished:
                return nil
            }
            if let event { return event }
        }
    }

    /// Reads the document's first bracket: the root is an object or an array of objects.
    private mutating func startDocument() throws {
        try source.skipByteOrderMark()
        try skipWhitespace()
        switch try source.next() {
        case UInt8(ascii: "{"): state = .object(layer: nil, first: true)
        case UInt8(ascii: "["):
            rootIsArray = true
            state = .rootArray(index: 0, first: true)
        case nil: throw SyntaxError(reason: "the file is empty", line: source.line)
        default: throw SyntaxError(reason: "the document does not start with '{' or '['", line: source.line)
        }
    }

    /// The next member of an object (the root, or the root array's object number `layer`): a member, or the start
    /// of a split array; nil at the object's end.
    private mutating func nextMember(layer: Int?, first: Bool) throws -> Event? {
        try skipWhitespace()
        var byte = try source.next()
        if byte == UInt8(ascii: "}") {
            state = layer.map { .rootArray(index: $0 + 1, first: false) } ?? .end
            return nil
        }
        if !first {
            guard byte == UInt8(ascii: ",") else { throw broken("expected ',' or '}' between members") }
            try skipWhitespace()
            byte = try source.next()
        }
        guard byte == UInt8(ascii: "\"") else { throw broken("expected a member name") }
        let key = try readKey()
        try skipWhitespace()
        guard try source.next() == UInt8(ascii: ":") else { throw broken("expected ':' after \"\(key)\"") }
        try skipWhitespace()
        state = .object(layer: layer, first: false)
        if splitKeys.contains(key), try source.peek() == UInt8(ascii: "[") {
            _ = try source.next()
            state = .array(key: key, layer: layer, first: true)
            return .arrayStart(key: key, layer: layer)
        }
        let memberLine = source.line
        guard case .bytes(let value) = try readValue(capture: true) else {
            throw SyntaxError(
                reason: "the value of \"\(key)\" is larger than the record size limit of \(limit) bytes; raise it with --max-record-size",
                line: memberLine)
        }
        return .member(key: key, value: value, layer: layer)
    }

    /// The next element of the split array `key`; nil at the array's end.
    private mutating func nextElement(of key: String, layer: Int?, first: Bool) throws -> Event? {
        try skipWhitespace()
        if try source.peek() == UInt8(ascii: "]") {
            _ = try source.next()
            state = .object(layer: layer, first: false)
            return nil
        }
        if !first {
            guard try source.next() == UInt8(ascii: ",") else { throw broken("expected ',' or ']' after an element of \"\(key)\"") }
            try skipWhitespace()
        }
        let line = source.line
        let value = try readValue(capture: captureElements)
        state = .array(key: key, layer: layer, first: false)
        switch value {
        case .bytes(let bytes): return .element(key: key, bytes: bytes, line: line, layer: layer)
        case .tooLarge(let byteCount): return .oversized(key: key, byteCount: byteCount, line: line, layer: layer)
        }
    }

    /// Reads into the root array's next object (number `index`), or past the array's end.
    private mutating func nextObject(index: Int, first: Bool) throws {
        try skipWhitespace()
        var byte = try source.next()
        if byte == UInt8(ascii: "]") {
            state = .end
            return
        }
        if !first {
            guard byte == UInt8(ascii: ",") else { throw broken("expected ',' or ']' between the document's elements") }
            try skipWhitespace()
            byte = try source.next()
        }
        guard byte == UInt8(ascii: "{") else { throw broken("element \(index + 1) of the document is not an object") }
        state = .object(layer: index, first: true)
    }

    private func broken(_ reason: String) -> SyntaxError { SyntaxError(reason: reason, line: source.line) }

    private mutating func skipWhitespace() throws {
        while let byte = try source.peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            _ = try source.next()
        }
    }

    /// Reads a member name after its opening quote, escapes decoded.
    private mutating func readKey() throws -> String {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        var escaped = false
        var hasEscape = false
        while let byte = try source.next() {
            bytes.append(byte)
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
                hasEscape = true
            } else if byte == UInt8(ascii: "\"") {
                if !hasEscape { return String(decoding: bytes[1..<(bytes.count - 1)], as: UTF8.self) }
                guard case .string(let key)? = try? JSONReader.parse(bytes: bytes) else { throw broken("invalid member name") }
                return key
            }
        }
        throw broken("the file ends inside a member name")
    }

    /// A value read: its bytes (empty when not captured), or only its size when that is over the limit.
    private enum Value {
        case bytes([UInt8])
        case tooLarge(byteCount: Int)
    }

    /// Reads one JSON value (object, array, string or scalar) by its brackets and quotes, returning its bytes
    /// when `capture` is true; a value over the limit is read to its end and only its size kept.
    private mutating func readValue(capture: Bool) throws -> Value {
        let startLine = source.line
        var bytes: [UInt8] = []
        guard let first = try source.peek() else { throw broken("the file ends where a value should start") }
        if first != UInt8(ascii: "{") && first != UInt8(ascii: "[") && first != UInt8(ascii: "\"") {
            // A number, true, false or null: up to the next delimiter.
            var size = 0
            while let byte = try source.peek() {
                switch byte {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09:
                    return size > limit ? .tooLarge(byteCount: size) : .bytes(bytes)
                default:
                    _ = try source.next()
                    size += 1
                    if size <= limit { bytes.append(byte) } else if !bytes.isEmpty { bytes = [] }
                }
            }
            return size > limit ? .tooLarge(byteCount: size) : .bytes(bytes)
        }
        switch try source.readJSONComposite(into: &bytes, capture: capture, limit: limit) {
        case .complete: return .bytes(bytes)
        case .tooLarge(let byteCount): return .tooLarge(byteCount: byteCount)
        case .endOfFile: throw SyntaxError(reason: "the file ends inside the value that starts on line \(startLine)", line: source.line)
        }
    }
}
