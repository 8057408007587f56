public import FeatureModel
import SwiftProtobuf

/// An ArcGIS query answer in Esri's FeatureCollection protocol buffer form (`f=pbf`, `application/x-protobuf`).
///
/// One answer is one `FeatureCollectionPBuffer` message (Sources/FeatureCollectionPBF/Proto/FeatureCollection.proto, our text of
/// Esri's public specification) whose query result holds features, a count, object IDs, or an extent:
///
/// ```swift
/// let bytes = try PBFQueryAnswer.features(featureSet).serializedBytes()          // a server's answer
/// guard case .features(let set) = try PBFQueryAnswer(serializedBytes: bytes) else { … }  // a client's reading
/// ```
///
/// Geometries are always integers on a grid in the wire form; the answer's transform maps them back:
/// - A ``FeatureSet`` with a ``FeatureSet/transform`` (a query with `quantizationParameters`) already holds grid cells,
///   each part's first vertex absolute and the rest as differences, as the specification's `coords` want them; they
///   are written as they are, with that transform.
/// - A ``FeatureSet`` without one holds real coordinates. They are put on a grid fine enough to give them back (see
///   ``PBFGrid``): 1e-9 in a geographic spatial reference and 1e-4 in a projected one, the default XY resolutions of
///   ArcGIS' own spatial references, with the grid's origin at the upper left of the answer's geometries.
///
/// Value type, `Sendable`; encoding and decoding are synchronous and do no I/O.
public enum PBFQueryAnswer: Sendable, Hashable {
    /// The features of a query (a statistics answer too: features without geometry).
    case features(FeatureSet)
    /// The answer to `returnCountOnly=true`.
    case count(Int)
    /// The answer to `returnIdsOnly=true`.
    case objectIds(objectIdFieldName: String, [Int64])
    /// The answer to `returnExtentOnly=true`: the extent (nil when nothing matched), and the count when asked for.
    case extent(Extent?, count: Int?)

    /// How a decoded answer gives its geometries.
    public enum Coordinates: Sendable, Hashable {
        /// Real coordinates in the answer's spatial reference (the transform applied); ``FeatureSet/transform`` is nil.
        case real
        /// Grid integers as the wire holds them (each part's first vertex absolute, the rest as differences), with the
        /// answer's transform in ``FeatureSet/transform``: the form of a JSON answer to a quantized query.
        case grid
    }

    /// The `Content-Type` of an `f=pbf` answer.
    public static let contentType = "application/x-protobuf"

    /// The version string an answer states, read before the rest by a careful reader.
    static let version = "1.0"

    /// The answer's bytes on the wire.
    /// - Throws: ``PBFError`` when a coordinate does not fit the grid's integers; SwiftProtobuf's `BinaryEncodingError`.
    public func serializedBytes() throws -> [UInt8] {
        var message = FeatureCollectionMessage()
        message.version = Self.version
        message.queryResult = try queryResult()
        return try message.serializedBytes()
    }

    /// Reads an answer from its bytes.
    /// - Parameters:
    ///   - bytes: The body of an `f=pbf` answer.
    ///   - coordinates: Whether geometries come back as real coordinates (the default) or as the wire's grid integers.
    /// - Throws: ``PBFError`` when the bytes are not a FeatureCollection or hold no query result.
    public init(serializedBytes bytes: [UInt8], coordinates: Coordinates = .real) throws {
        let message: FeatureCollectionMessage
        do {
            message = try FeatureCollectionMessage(serializedBytes: bytes)
        } catch {
            throw PBFError.malformed("\(error)")
        }
        guard message.hasQueryResult, let result = message.queryResult.results else {
            throw PBFError.malformed("the FeatureCollection holds no query result")
        }
        switch result {
        case .featureResult(let features):
            self = .features(try Self.featureSet(features, coordinates: coordinates))
        case .countResult(let count):
            self = .count(Int(clamping: count.count))
        case .idsResult(let ids):
            self = .objectIds(objectIdFieldName: ids.objectIDFieldName, ids.objectIds.map { Int64(clamping: $0) })
        case .extentCountResult(let extent):
            self = .extent(extent.hasExtent ? Self.extent(extent.extent) : nil, count: extent.hasCount ? Int(clamping: extent.count) : nil)
        }
    }

    private func queryResult() throws -> FeatureCollectionMessage.QueryResult {
        var result = FeatureCollectionMessage.QueryResult()
        switch self {
        case .features(let set):
            result.featureResult = try Self.featureResult(set)
        case .count(let count):
            result.countResult.count = UInt64(max(count, 0))
        case .objectIds(let name, let ids):
            result.idsResult.objectIDFieldName = name
            result.idsResult.objectIds = ids.map { UInt64(bitPattern: $0) }
        case .extent(let extent, let count):
            var answer = FeatureCollectionMessage.ExtentCountResult()
            if let extent { answer.extent = Self.envelope(extent) }
            if let count { answer.count = UInt64(max(count, 0)) }
            result.extentCountResult = answer
        }
        return result
    }

    static func envelope(_ extent: Extent) -> FeatureCollectionMessage.Envelope {
        var envelope = FeatureCollectionMessage.Envelope()
        envelope.xmin = extent.xmin
        envelope.ymin = extent.ymin
        envelope.xmax = extent.xmax
        envelope.ymax = extent.ymax
        if let reference = extent.spatialReference { envelope.spatialReference = PBFSpatialReference.message(reference) }
        return envelope
    }

    static func extent(_ envelope: FeatureCollectionMessage.Envelope) -> Extent {
        Extent(
            xmin: envelope.xmin, ymin: envelope.ymin, xmax: envelope.xmax, ymax: envelope.ymax,
            spatialReference: envelope.hasSpatialReference ? PBFSpatialReference.value(envelope.spatialReference) : nil)
    }
}

/// The generated message of a whole answer.
typealias FeatureCollectionMessage = EsriPBuffer_FeatureCollectionPBuffer
