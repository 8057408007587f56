import FeatureModel

/// Helpers shared by the JSON readers: parsing one record's bytes and placing a JSON error on its line.
enum RecordText {
    /// The record's text as it stood in the file.
    static func string(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The parsed record, or the problem (with the line the syntax error is on) at `position`.
    static func parse(_ bytes: [UInt8], position: InputPosition) -> Result<JSONValue, InputProblem> {
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

    /// A problem at `position` with the record's text.
    static func problem(_ reason: String, at position: InputPosition, bytes: [UInt8]) -> InputProblem {
        InputProblem(position: position, reason: reason, source: string(bytes))
    }
}
