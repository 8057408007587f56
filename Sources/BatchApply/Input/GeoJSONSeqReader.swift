import FeatureModel
import Foundation

/// Reads newline-delimited features (GeoJSONSeq RFC 8142 with or without its record separators, NDJSON, JSON
/// Lines), one record per non-blank line. A line holds a GeoJSON Feature or an Esri JSON feature
/// (`{"attributes": …, "geometry": …}`, as the rejects of a GeoPackage input are written); both are adds unless
/// ``InputOptions/kindField`` says otherwise.
///
/// A bad line is a problem of its own and the next line is read. Memory: one chunk and one line. Blocks on I/O.
public struct GeoJSONSeqReader: EditReader {
    private var source: ByteSource
    private var index = 0
    private var finished = false
    private let kindField: String?

    /// A reader of the file at `path`.
    /// - Throws: ``InputSetupError`` when the file cannot be opened.
    public init(path: String, options: InputOptions = InputOptions()) throws {
        source = try ByteSource(path: path, chunkSize: options.chunkSize)
        kindField = options.kindField
    }

    /// A reader of lines in memory, read in chunks of `options.chunkSize` as a file would be.
    package init(bytes: [UInt8], options: InputOptions = InputOptions()) {
        source = ByteSource(bytes: bytes, chunkSize: options.chunkSize)
        kindField = options.kindField
    }

    public mutating func next() -> Result<InputEdit, InputProblem>? {
        while !finished {
            let line = source.line
            var bytes: [UInt8] = []
            do {
                if source.offset == 0 { try source.skipByteOrderMark() }
                guard try source.readLine(into: &bytes) else {
                    finished = true
                    return nil
                }
            } catch {
                finished = true
                return .failure(InputProblem(position: InputPosition(index: index, line: line), reason: "cannot read the file: \(error)"))
            }
            // RFC 8142 puts a record separator (0x1E) before each text; CRLF files end lines with \r.
            while let first = bytes.first, first == 0x1E || first == 0x20 || first == 0x09 { bytes.removeFirst() }
            while let last = bytes.last, last == 0x0D || last == 0x20 || last == 0x09 { bytes.removeLast() }
            if bytes.isEmpty { continue }
            let position = InputPosition(index: index, line: line)
            index += 1
            return decode(bytes, position: position)
        }
        return nil
    }

    private func decode(_ bytes: [UInt8], position: InputPosition) -> Result<InputEdit, InputProblem> {
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
