import FeatureModel
import Foundation

/// Reads an Esri JSON document edit by edit. Three shapes are accepted:
///
/// - a feature set `{"geometryType": …, "spatialReference": …, "features": [{attributes, geometry}]}`: adds
///   (or the kind ``InputOptions/kindField`` names); the set's spatial reference goes to geometries without one;
/// - an applyEdits body `{"adds": […], "updates": […], "deletes": [1, 2] or ["{GUID}", …] or "1,2"}`;
/// - service-level edits `[{"id": 0, "adds": […], …}, {"id": 1, …}]`: each edit's layer is the entry's `id`.
///
/// A delete's feature holds only its key, under ``EsriJSONFeature/objectIdKey`` (`OBJECTID`) or
/// ``EsriJSONFeature/globalIdKey`` (`GlobalID`): the reader does not know the layer's field names, so the
/// applier (or ``FieldCoercion``) maps them. Read in two passes of 64 KiB chunks like ``GeoJSONReader``.
package struct EsriJSONReader: EditReader {
    private static let splitKeys: Set<String> = ["features", "adds", "updates", "deletes"]
    private var splitter: JSONArraySplitter?
    private var pending: [Result<InputEdit, InputProblem>] = []
    private var index = 0
    private let kindField: String?
    private let limit: Int
    private let spatialReference: SpatialReference?
    private let geometryType: GeometryType?
    /// Each service-level entry's `id`, by its place in the document.
    private let layerIDs: [Int: JSONValue]

    /// A reader of the Esri JSON file at `path`.
    /// - Throws: ``InputSetupError`` when the file cannot be opened.
    package init(path: String, options: InputOptions = InputOptions()) throws {
        try self.init(options: options) { () throws(InputSetupError) in try ByteSource(path: path, chunkSize: options.chunkSize) }
    }

    /// A reader of an Esri JSON document in memory, read in chunks of `options.chunkSize` as a file would be.
    package init(bytes: [UInt8], options: InputOptions = InputOptions()) {
        try! self.init(options: options) { () throws(InputSetupError) in ByteSource(bytes: bytes, chunkSize: options.chunkSize) }
    }

    private init(options: InputOptions, open: () throws(InputSetupError) -> ByteSource) throws(InputSetupError) {
        kindField = options.kindField
        limit = options.maxRecordSize
        var scan = JSONArraySplitter(source: try open(), splitKeys: Self.splitKeys, captureElements: false, limit: limit)
        var reference: SpatialReference?
        var type: GeometryType?
        var ids: [Int: JSONValue] = [:]
        var hasEdits = false
        var broken = false
        do {
            while let event = try scan.next() {
                switch event {
                case .member("spatialReference", let value, nil):
                    if let value = try? JSONReader.parse(bytes: value),
                        case .point(_, _, _, let sr)? = try? EsriJSONFeature.geometry(
                            ["x": 0, "y": 0, "spatialReference": value], spatialReference: nil)
                    {
                        reference = sr
                    }
                case .member("geometryType", let value, nil):
                    type = (try? JSONReader.parse(bytes: value))?.stringValue.flatMap(GeometryType.init(rawValue:))
                case .member("id", let value, let layer?): ids[layer] = try? JSONReader.parse(bytes: value)
                case .member("deletes", _, _), .arrayStart: hasEdits = true
                default: break
                }
            }
        } catch {
            broken = true
        }
        spatialReference = reference
        geometryType = type
        layerIDs = ids
        if hasEdits || broken {
            splitter = JSONArraySplitter(source: try open(), splitKeys: Self.splitKeys, limit: limit)
        } else {
            pending = [
                .failure(
                    InputProblem(
                        position: InputPosition(index: 0, line: 1), reason: "found no \"features\", \"adds\", \"updates\" or \"deletes\" array"))
            ]
        }
    }

    package mutating func next() -> Result<InputEdit, InputProblem>? {
        if !pending.isEmpty { return pending.removeFirst() }
        guard var current = splitter else { return nil }
        splitter = nil
        do {
            while let event = try current.next() {
                switch event {
                case .element(let key, let bytes, let line, let layer):
                    let position = InputPosition(index: index, line: line)
                    index += 1
                    splitter = current
                    return decode(key: key, bytes: bytes, layer: layer, position: position)
                case .oversized(_, let byteCount, let line, _):
                    let position = InputPosition(index: index, line: line)
                    index += 1
                    splitter = current
                    return .failure(RecordText.tooLarge(byteCount: byteCount, limit: limit, at: position))
                case .member("deletes", let bytes, let layer):
                    // applyEdits also takes deletes as a comma-separated string.
                    guard case .string(let list)? = try? JSONReader.parse(bytes: bytes) else { continue }
                    for item in list.split(separator: ",") {
                        let text = Array("\"\(item)\"".utf8)
                        pending.append(decode(key: "deletes", bytes: text, layer: layer, position: InputPosition(index: index)))
                        index += 1
                    }
                    if !pending.isEmpty {
                        splitter = current
                        return pending.removeFirst()
                    }
                default: continue
                }
            }
            return nil
        } catch {
            return .failure(JSONDocumentProblem.make(error, index: index))
        }
    }

    private func decode(key: String, bytes: [UInt8], layer: Int?, position: InputPosition) -> Result<InputEdit, InputProblem> {
        var layerID: Int?
        if let layer {
            guard let id = layerIDs[layer]?.intValue else {
                return .failure(
                    RecordText.problem("service-level entry \(layer + 1) has no numeric \"id\" naming its layer", at: position, bytes: bytes))
            }
            layerID = Int(id)
        }
        return RecordText.parse(bytes, position: position).flatMap { value in
            do throws(GeometryProblem) {
                var kind: InputEdit.Kind
                var feature: Feature
                switch key {
                case "deletes":
                    kind = .delete
                    feature = try EsriJSONFeature.deleteKey(value)
                default:
                    kind = key == "updates" ? .update : .add
                    feature = try EsriJSONFeature.feature(value, spatialReference: spatialReference, geometryType: geometryType)
                    if key == "features" {
                        do throws(RecordError) { kind = try EditKindField.take(from: &feature.attributes, field: kindField) } catch {
                            throw GeometryProblem(error.reason)
                        }
                    }
                }
                return .success(InputEdit(kind: kind, feature: feature, layer: layerID, position: position, source: RecordText.string(bytes)))
            } catch {
                return .failure(RecordText.problem(error.reason, at: position, bytes: bytes))
            }
        }
    }
}
