import FeatureModel
import Foundation

/// Reads newline-delimited features (GeoJSONSeq RFC 8142 with or without its record separators, NDJSON, JSON
/// Lines), one record per non-blank line. A line holds a GeoJSON Feature or an Esri JSON feature
/// (`{"attributes": …, "geometry": …}`, as the rejects of a GeoPackage input are written); both are adds unless
/// ``InputOptions/kindField`` says otherwise.
///
/// A bad line is a problem of its own and the next line is read. Memory: one chunk and one line. Blocks on I/O.
package struct GeoJSONSeqReader: EditReader {
    private var source: ByteSource
    private var index = 0
    private var finished = false
    private let kindField: String?
    private let limit: Int

    /// A reader of the file at `path`.
    /// - Throws: ``InputSetupError`` when the file cannot be opened.
    package init(path: String, options: InputOptions = InputOptions()) throws {
        source = try ByteSource(path: path, chunkSize: options.chunkSize)
        kindField = options.kindField
        limit = options.maxRecordSize
    }

    /// A reader of lines in memory, read in chunks of `options.chunkSize` as a file would be.
    package init(bytes: [UInt8], options: InputOptions = InputOptions()) {
        source = ByteSource(bytes: bytes, chunkSize: options.chunkSize)
        kindField = options.kindField
        limit = options.maxRecordSize
    }

    package mutating func next() -> Result<InputEdit, InputProblem>? { nextRead()?.decode() }

    /// The next non-blank line, decoded when ``ReadRecord/decode()`` is called.
    package mutating func nextRead() -> ReadRecord? {
        while !finished {
            let line = source.line
            var bytes: [UInt8] = []
            do {
                if source.offset == 0 { try source.skipByteOrderMark() }
                switch try source.readLine(into: &bytes, limit: limit) {
                case nil:
                    finished = true
                    return nil
                case .tooLarge(let byteCount)?:
                    let position = InputPosition(index: index, line: line)
                    index += 1
                    return .decoded(.failure(RecordText.tooLarge(byteCount: byteCount, limit: limit, at: position)))
                case .complete?, .endOfFile?: break
                }
            } catch {
                finished = true
                return .decoded(.failure(InputProblem(position: InputPosition(index: index, line: line), reason: "cannot read the file: \(error)")))
            }
            // RFC 8142 puts a record separator (0x1E) before each text; CRLF files end lines with \r.
            let start = bytes.firstIndex { $0 != 0x1E && $0 != 0x20 && $0 != 0x09 } ?? bytes.endIndex
            let end = (bytes.lastIndex { $0 != 0x0D && $0 != 0x20 && $0 != 0x09 }).map { $0 + 1 } ?? start
            if start >= end { continue }
            if start > 0 || end < bytes.count { bytes = Array(bytes[start..<end]) }
            let position = InputPosition(index: index, line: line)
            index += 1
            let kindField = kindField
            // Without a kind field every GeoJSON Feature is an add: the planner may take its fast path.
            let text = kindField == nil ? GeoJSONText(bytes: bytes, position: position, wkid: 4326) : nil
            return .deferred(byteCount: bytes.count, geoJSON: text) { [bytes] in Self.decode(bytes, position: position, kindField: kindField) }
        }
        return nil
    }

    private static func decode(_ bytes: [UInt8], position: InputPosition, kindField: String?) -> Result<InputEdit, InputProblem> {
        RecordText.parse(bytes, position: position).flatMap { value in
            do throws(GeometryProblem) {
                let kind: InputEdit.Kind
                var feature: Feature
                if case .object(let object) = value, object["type"] == nil, object["attributes"] != nil || object["geometry"] != nil {
                    feature = try EsriJSONFeature.feature(value)
                    do throws(RecordError) { kind = try EditKindField.take(from: &feature.attributes, field: kindField) } catch {
                        throw GeometryProblem(error.reason)
                    }
                } else {
                    (kind, feature) = try GeoJSONFeature.decode(value, kindField: kindField)
                }
                return .success(InputEdit(kind: kind, feature: feature, position: position, source: RecordText.string(bytes)))
            } catch {
                return .failure(RecordText.problem(error.reason, at: position, bytes: bytes))
            }
        }
    }
}
