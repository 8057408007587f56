import FeatureModel

/// Helpers shared by the JSON readers: parsing one record's bytes and placing a JSON error on its line.
enum RecordText {
    /// The record's text as it stood in the file.
    static func string(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The parsed record, or the problem (with the line the syntax error is on) at `position`. Text that is not
    /// valid UTF-8 is a problem, not text with replacement characters sent to the service.
    static func parse(_ bytes: [UInt8], position: InputPosition) -> Result<JSONValue, InputProblem> {
        if let problem = utf8Problem(bytes, position: position) { return .failure(problem) }
        do {
            return .success(try JSONReader.parse(bytes: bytes))
        } catch {
            var where_ = ""
            if let line = position.line {
                let newlines = bytes.prefix(error.offset).lazy.filter { $0 == 0x0A }.count
                if newlines > 0 { where_ = " (line \(line + newlines))" }
            }
            return .failure(InputProblem(position: position, reason: "invalid JSON: \(error.reason)\(where_)", source: string(bytes)))
        }
    }

    /// The problem of a record whose bytes are not valid UTF-8, naming the first bad byte; nil when they are valid.
    static func utf8Problem(_ bytes: [UInt8], position: InputPosition) -> InputProblem? {
        guard let offset = firstInvalidUTF8(bytes) else { return nil }
        let byte = String(bytes[offset], radix: 16, uppercase: true)
        return InputProblem(
            position: position,
            reason: "the record is not valid UTF-8: byte \(offset + 1) of it (0x\(byte)) starts no character; save the file as UTF-8",
            source: string(bytes))
    }

    /// The offset of the first byte that is not part of a valid UTF-8 sequence, or nil when all are.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        // Most records are ASCII: one pass without decoding settles them.
        guard bytes.contains(where: { $0 >= 0x80 }) else { return nil }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// The problem of a record larger than the record size limit: it was read past, not held, so it has no text.
    static func tooLarge(byteCount: Int, limit: Int, at position: InputPosition) -> InputProblem {
        InputProblem(
            position: position,
            reason:
                "the record is \(byteCount) bytes, more than the record size limit of \(limit) bytes; raise it with --max-record-size if it is meant to be that large"
        )
    }

    /// A problem at `position` with the record's text.
    static func problem(_ reason: String, at position: InputPosition, bytes: [UInt8]) -> InputProblem {
        InputProblem(position: position, reason: reason, source: string(bytes))
    }
}
