import FeatureModel

/// Geometries between the grid form of ``Geometry`` (each part's first vertex absolute, later ones as differences)
/// and the wire's `lengths` (vertices per part) and `coords` (x, y per vertex, flattened).
///
/// Esri's specification restarts the differences at each part: a path's or ring's first vertex is written as grid
/// integers, not as its difference from the previous part's last vertex (the worked polyline and polygon examples in
/// its README read that way, as do Esri's JavaScript readers), which is the form of a quantized JSON answer too.
enum PBFGeometry {
    static func wireType(_ type: GeometryType?) -> FeatureCollectionMessage.GeometryType {
        switch type {
        case .point: return .esriGeometryTypePoint
        case .multipoint: return .esriGeometryTypeMultipoint
        case .polyline: return .esriGeometryTypePolyline
        case .polygon: return .esriGeometryTypePolygon
        case .envelope: return .esriGeometryTypeEnvelope
        case nil: return .esriGeometryTypeNone
        }
    }

    static func modelType(_ type: FeatureCollectionMessage.GeometryType) -> GeometryType? {
        switch type {
        case .esriGeometryTypePoint: return .point
        case .esriGeometryTypeMultipoint: return .multipoint
        case .esriGeometryTypePolyline: return .polyline
        case .esriGeometryTypePolygon: return .polygon
        case .esriGeometryTypeEnvelope: return .envelope
        default: return nil
        }
    }

    /// The wire form of a grid geometry; nil for an empty one (no geometry on the feature).
    /// - Throws: ``PBFError`` when a grid coordinate is not a whole number an Int64 holds.
    static func message(_ geometry: Geometry) throws -> FeatureCollectionMessage.Geometry? {
        var message = FeatureCollectionMessage.Geometry()
        message.geometryType = wireType(geometry.geometryType)
        switch geometry {
        case .point(let x, let y, _, _):
            guard x.isFinite, y.isFinite else { return nil }
            message.coords = [try integer(x), try integer(y)]
        case .multipoint(let points, _):
            guard !points.isEmpty else { return nil }
            try append([points], to: &message)
        case .polyline(let parts, _), .polygon(let parts, _):
            guard parts.contains(where: { !$0.isEmpty }) else { return nil }
            try append(parts.filter { !$0.isEmpty }, to: &message)
        case .envelope(let xmin, let ymin, let xmax, let ymax, _):
            guard [xmin, ymin, xmax, ymax].allSatisfy(\.isFinite) else { return nil }
            message.lengths = [2]
            message.coords = [try integer(xmin), try integer(ymin), try integer(xmax), try integer(ymax)]
        }
        return message
    }

    private static func append(_ parts: [[[Double]]], to message: inout FeatureCollectionMessage.Geometry) throws {
        message.lengths.reserveCapacity(parts.count)
        message.coords.reserveCapacity(2 * parts.reduce(0) { $0 + $1.count })
        for part in parts {
            message.lengths.append(UInt32(part.count))
            for vertex in part {
                guard vertex.count >= 2 else { throw PBFError.offGrid("a vertex has fewer than two coordinates") }
                message.coords.append(try integer(vertex[0]))
                message.coords.append(try integer(vertex[1]))
            }
        }
    }

    /// The largest magnitude a grid integer may have: what a Double holds exactly (2^53).
    private static let exact = 9_007_199_254_740_992.0

    private static func integer(_ value: Double) throws -> Int64 {
        guard value.isFinite, abs(value) <= exact else { throw PBFError.offGrid("grid coordinate \(value) is not an exact integer") }
        return Int64(value.rounded())
    }

    /// The grid form of a wire geometry of `type` whose vertices have `stride` coordinates (x, y first).
    /// - Throws: ``PBFError`` when `lengths` and `coords` disagree.
    static func value(_ message: FeatureCollectionMessage.Geometry, type: GeometryType, stride: Int) throws -> Geometry {
        let coords = message.coords
        if type == .point {
            guard coords.count >= 2 else { throw PBFError.malformed("a point has \(coords.count) coordinates") }
            return .point(x: Double(coords[0]), y: Double(coords[1]))
        }
        let lengths = message.lengths.isEmpty ? [UInt32(coords.count / stride)] : message.lengths
        guard lengths.reduce(0, { $0 + Int($1) }) * stride == coords.count else {
            throw PBFError.malformed("lengths \(lengths) do not match \(coords.count) coordinates of stride \(stride)")
        }
        var parts: [[[Double]]] = []
        parts.reserveCapacity(lengths.count)
        var at = 0
        for length in lengths {
            var part: [[Double]] = []
            part.reserveCapacity(Int(length))
            for _ in 0..<length {
                part.append([Double(coords[at]), Double(coords[at + 1])])
                at += stride
            }
            parts.append(part)
        }
        switch type {
        case .multipoint: return .multipoint(points: parts.flatMap { $0 })
        case .polyline: return .polyline(paths: parts)
        case .envelope:
            let corners = parts.flatMap { $0 }
            guard corners.count == 2 else { return .polygon(rings: parts) }
            return .envelope(xmin: corners[0][0], ymin: corners[0][1], xmax: corners[1][0], ymax: corners[1][1])
        case .polygon, .point: return .polygon(rings: parts)
        }
    }

    /// Real coordinates of a grid geometry: each part's differences summed, then the transform applied.
    static func real(_ geometry: Geometry, transform: QuantizationTransform) -> Geometry {
        func part(_ vertices: [[Double]]) -> [[Double]] {
            var (i, j) = (0.0, 0.0)
            return vertices.enumerated().map { index, vertex in
                (i, j) = index == 0 ? (vertex[0], vertex[1]) : (i + vertex[0], j + vertex[1])
                let (x, y) = transform.coordinate(i, j)
                return [x, y]
            }
        }
        switch geometry {
        case .point(let i, let j, _, _):
            let (x, y) = transform.coordinate(i, j)
            return .point(x: x, y: y)
        case .multipoint(let points, _): return .multipoint(points: part(points))
        case .polyline(let paths, _): return .polyline(paths: paths.map(part))
        case .polygon(let rings, _): return .polygon(rings: rings.map(part))
        case .envelope(let xmin, let ymin, let xmax, let ymax, _):
            let (x0, y0) = transform.coordinate(xmin, ymin)
            let (x1, y1) = transform.coordinate(xmax, ymax)
            return .envelope(xmin: min(x0, x1), ymin: min(y0, y1), xmax: max(x0, x1), ymax: max(y0, y1))
        }
    }
}
