import FeatureModel
import Foundation

/// Reads a GeoJSON document (a FeatureCollection, or a single Feature) feature by feature, as adds unless
/// ``InputOptions/kindField`` says otherwise.
///
/// The file is read twice in 64 KiB chunks: a first pass finds the collection's members (`type`, a legacy `crs`
/// wherever it stands), the second cuts the `features` array into features and decodes one at a time, so memory
/// holds one chunk and one feature. Positions carry the line each feature starts on. Blocks on file I/O.
package struct GeoJSONReader: EditReader {
    private var splitter: JSONArraySplitter?
    private var pending: [Result<InputEdit, InputProblem>] = []
    private var index = 0
    private let spatialReference: SpatialReference
    private let kindField: String?
    private let limit: Int
    private var source: ByteSource?

    /// A reader of the GeoJSON file at `path`.
    /// - Throws: ``InputSetupError`` when the file cannot be opened.
    package init(path: String, options: InputOptions = InputOptions()) throws {
        try self.init(options: options) { () throws(InputSetupError) in try ByteSource(path: path, chunkSize: options.chunkSize) }
    }

    /// A reader of a GeoJSON document in memory, read in chunks of `options.chunkSize` as a file would be.
    package init(bytes: [UInt8], options: InputOptions = InputOptions()) {
        try! self.init(options: options) { () throws(InputSetupError) in ByteSource(bytes: bytes, chunkSize: options.chunkSize) }
    }

    private init(options: InputOptions, open: () throws(InputSetupError) -> ByteSource) throws(InputSetupError) {
        kindField = options.kindField
        limit = options.maxRecordSize
        // First pass: the collection's own members; elements are skipped, not copied.
        var scan = JSONArraySplitter(source: try open(), splitKeys: ["features"], captureElements: false, limit: limit)
        var type: String?
        var crs: JSONValue?
        var hasFeatures = false
        var featuresLike: (key: String, value: [UInt8])?
        var scanError: (any Error)?
        do {
            while let event = try scan.next() {
                switch event {
                case .member(let key, let value, nil) where key == "type": type = (try? JSONReader.parse(bytes: value))?.stringValue
                case .member(let key, let value, nil) where key == "crs": crs = try? JSONReader.parse(bytes: value)
                case .member(let key, let value, nil) where key.lowercased() == "features": featuresLike = (key, Array(value.prefix(1)))
                case .arrayStart("features", nil): hasFeatures = true
                default: break
                }
            }
        } catch {
            scanError = error
        }
        var reference = SpatialReference(wkid: 4326)
        if let crs, !crs.isNull {
            do { reference = SpatialReference(wkid: try GeoJSONGeometry.wkid(ofCRS: crs)) } catch {
                pending = [.failure(InputProblem(position: InputPosition(index: 0, line: 1), reason: "the collection's \(error.reason)"))]
            }
        }
        spatialReference = reference
        guard pending.isEmpty else { return }
        if scan.rootIsArray {
            pending = [.failure(InputProblem(position: InputPosition(index: 0, line: 1), reason: "a GeoJSON document is an object, not an array"))]
        } else if type == "Feature" {
            if let scanError {
                // Not one Feature: likely one per line. Reading it whole would hold the entire file.
                var problem = JSONDocumentProblem.make(scanError, index: 0)
                problem.reason += "; for one feature per line, name the file .geojsonl or .ndjson"
                pending = [.failure(problem)]
            } else {
                source = try open()
            }
        } else if type == "FeatureCollection", !hasFeatures, scanError == nil {
            // Reading on would apply "0 of 0": say what is missing instead.
            let reason: String
            switch featuresLike {
            case ("features", let value)?:
                let what = value.first == UInt8(ascii: "{") ? "an object" : "not an array"
                reason = "its \"features\" is \(what); it must be an array of Features"
            case (let key, _)?: reason = "it has \"\(key)\" but no \"features\" (member names are case-sensitive)"
            case nil: reason = "it has no \"features\" array"
            }
            let start = InputPosition(index: 0, line: 1)
            pending = [.failure(InputProblem(position: start, reason: "the FeatureCollection holds no features: \(reason)"))]
        } else if type == "FeatureCollection" || hasFeatures {
            splitter = JSONArraySplitter(source: try open(), splitKeys: ["features"], limit: limit)
        } else if scanError == nil {
            let found = type.map { "\"type\" is \"\($0)\"" } ?? "no \"type\" and no \"features\""
            pending = [
                .failure(InputProblem(position: InputPosition(index: 0, line: 1), reason: "not a GeoJSON FeatureCollection or Feature: \(found)"))
            ]
        } else {
            splitter = JSONArraySplitter(source: try open(), splitKeys: ["features"], limit: limit)
        }
    }

    package mutating func next() -> Result<InputEdit, InputProblem>? { nextRead()?.decode() }

    /// The next feature's text, decoded when ``ReadRecord/decode()`` is called.
    package mutating func nextRead() -> ReadRecord? {
        if !pending.isEmpty { return .decoded(pending.removeFirst()) }
        if var whole = source {
            source = nil
            return .decoded(readSingleFeature(&whole))
        }
        guard var current = splitter else { return nil }
        splitter = nil
        do {
            while let event = try current.next() {
                if case .oversized(_, let byteCount, let line, _) = event {
                    let position = InputPosition(index: index, line: line)
                    splitter = current
                    index += 1
                    return .decoded(.failure(RecordText.tooLarge(byteCount: byteCount, limit: limit, at: position)))
                }
                guard case .element(_, let bytes, let line, _) = event else { continue }
                let position = InputPosition(index: index, line: line)
                index += 1
                splitter = current
                let (spatialReference, kindField) = (spatialReference, kindField)
                // Without a kind field every Feature is an add: the planner may take its fast path.
                let text =
                    kindField == nil && spatialReference.latestWkid == nil
                    ? spatialReference.wkid.map { GeoJSONText(bytes: bytes, position: position, wkid: $0) } : nil
                return .deferred(byteCount: bytes.count, geoJSON: text) {
                    Self.decode(bytes, position: position, spatialReference: spatialReference, kindField: kindField)
                }
            }
            return nil
        } catch {
            // Nothing after a broken structure can be trusted: the reader ends here.
            return .decoded(.failure(JSONDocumentProblem.make(error, index: index)))
        }
    }

    private mutating func readSingleFeature(_ whole: inout ByteSource) -> Result<InputEdit, InputProblem> {
        var bytes: [UInt8] = []
        var size = 0
        do {
            try whole.skipByteOrderMark()
            while let byte = try whole.next() {
                size += 1
                if size <= limit { bytes.append(byte) } else if !bytes.isEmpty { bytes = [] }
            }
        } catch {
            return .failure(InputProblem(position: InputPosition(index: 0, line: 1), reason: "cannot read the file: \(error)"))
        }
        index = 1
        if size > limit { return .failure(RecordText.tooLarge(byteCount: size, limit: limit, at: InputPosition(index: 0, line: 1))) }
        return Self.decode(bytes, position: InputPosition(index: 0, line: 1), spatialReference: spatialReference, kindField: kindField)
    }

    private static func decode(
        _ bytes: [UInt8], position: InputPosition, spatialReference: SpatialReference, kindField: String?
    ) -> Result<InputEdit, InputProblem> {
        RecordText.parse(bytes, position: position).flatMap { value in
            do throws(GeometryProblem) {
                let (kind, feature) = try GeoJSONFeature.decode(value, spatialReference: spatialReference, kindField: kindField)
                return .success(InputEdit(kind: kind, feature: feature, position: position, source: RecordText.string(bytes)))
            } catch {
                return .failure(RecordText.problem(error.reason, at: position, bytes: bytes))
            }
        }
    }
}

/// The problem a broken JSON document gives: where the structure broke, or why the file could not be read.
enum JSONDocumentProblem {
    static func make(_ error: any Error, index: Int) -> InputProblem {
        if let syntax = error as? JSONArraySplitter.SyntaxError {
            return InputProblem(
                position: InputPosition(index: index, line: syntax.line),
                reason: "the JSON document is broken here, no further records can be read: \(syntax.reason)")
        }
        return InputProblem(position: InputPosition(index: index), reason: "cannot read the file: \(error)")
    }
}
