import FeatureModel

/// `quantizationParameters` of a layer query: answered geometries as integers on a grid of `tolerance`-sized cells
/// laid over `extent`, in the output spatial reference, with the answer's ``QuantizationTransform`` saying how to map
/// them back (ArcGIS' Query (Feature Service/Layer); what the ArcGIS Maps SDK for JavaScript asks for every tile).
///
/// ```
/// quantizationParameters={"mode":"view","originPosition":"upperLeft","tolerance":9.554628535647032,
///   "extent":{"xmin":-13046161,"ymin":4036006,"xmax":-13041269,"ymax":4040898,"spatialReference":{"wkid":102100}}}
/// ```
/// - A coordinate goes to the nearest cell: `i = round((x − xmin) / tolerance)`, `j = round((ymax − y) / tolerance)`
///   with `upperLeft` (the default) or `round((y − ymin) / tolerance)` with `lowerLeft`.
/// - A point answers its cell. A multipoint, each path and each ring answer their first vertex's cell and then each
///   later vertex as the difference from the one before; a vertex on the same cell as the one before is dropped, but
///   a path or ring keeps at least two vertices (a shape smaller than a cell still draws as one).
/// - `view` (the default) is for drawing: lines and polygons are first generalized to the cell size (or to
///   `maxAllowableOffset` when the query gives it), as no display can show more. `edit` keeps every vertex that
///   lands on a cell of its own: an editor gets the shape at the grid's full resolution.
/// - `tolerance` (default 1) is in output units; `extent` defaults to the layer's extent, and is projected to the
///   output spatial reference when its `spatialReference` differs.
struct Quantization: Sendable, Hashable {
    enum Mode: String, Sendable, Hashable, CaseIterable {
        case view
        case edit
    }

    var mode: Mode
    var transform: QuantizationTransform
    /// The cell size, in output units.
    var tolerance: Double { transform.scale[0] }

    /// The largest whole number a Double holds exactly; a grid wider than this (a tolerance far too small for the
    /// world) would answer wrong integers.
    private static let exactIntegers = 9_007_199_254_740_992.0

    /// Reads `quantizationParameters`; nil when absent or empty.
    /// - Parameters:
    ///   - output: The answer's spatial reference, in which tolerance and extent are read.
    ///   - layerExtent: The extent when the parameters give none (in its own spatial reference; 4326 when unstated).
    /// - Throws: ``ServiceError`` (400) naming what is wrong and what is accepted.
    static func parse(
        _ parameters: RequestParameters, output: QuerySpatialReference, layerExtent: Extent?
    ) throws(ServiceError) -> Quantization? {
        guard let text = parameters["quantizationParameters"], !text.trimmed.isEmpty else { return nil }
        guard let value = try? JSONReader.parse(text), case .object(let members) = value else {
            throw invalid("must be a JSON object such as {\"tolerance\":1,\"extent\":{…},\"mode\":\"view\",\"originPosition\":\"upperLeft\"}")
        }
        let mode = try option(members["mode"], name: "mode", default: Mode.view)
        let origin = try option(members["originPosition"], name: "originPosition", default: QuantizationTransform.OriginPosition.upperLeft)
        var tolerance = 1.0
        if let given = members["tolerance"], given != .null {
            guard let number = given.doubleValue, number.isFinite, number > 0 else {
                throw invalid("tolerance must be a number above 0 (the size of one cell in output units)")
            }
            tolerance = number
        }
        guard let extent = try extent(members["extent"], output: output, layerExtent: layerExtent) else {
            throw invalid("extent is required: the layer has no extent to default to")
        }
        let world = output == .wgs84 ? 360.0 : 2 * Double.pi * QuerySpatialReference.radius
        guard world / tolerance < exactIntegers / 2 else {
            throw invalid("tolerance \(tolerance) is too small: the world would span more cells than an answer can count exactly")
        }
        let transform = QuantizationTransform(originPosition: origin, tolerance: tolerance, xmin: extent.xmin, ymin: extent.ymin, ymax: extent.ymax)
        return Quantization(mode: mode, transform: transform)
    }

    /// The cell of an output coordinate.
    func cell(_ x: Double, _ y: Double) -> (Double, Double) {
        let i = ((x - transform.translate[0]) / tolerance).rounded()
        let offset = transform.originPosition == .upperLeft ? transform.translate[1] - y : y - transform.translate[1]
        return (i, (offset / tolerance).rounded())
    }

    /// `geometry` (in output coordinates, already generalized) on the grid, delta-encoded.
    func quantize(_ geometry: Geometry) -> Geometry {
        switch geometry {
        case .point(let x, let y, _, _):
            let (i, j) = cell(x, y)
            return .point(x: i, y: j)
        case .multipoint(let points, _):
            return .multipoint(points: encode(points, minimum: 1))
        case .polyline(let paths, _):
            return .polyline(paths: paths.map { encode($0, minimum: 2) })
        case .polygon(let rings, _):
            return .polygon(rings: rings.map { encode($0, minimum: 2) })
        case .envelope(let xmin, let ymin, let xmax, let ymax, _):
            let (i0, j0) = cell(xmin, ymin)
            let (i1, j1) = cell(xmax, ymax)
            return .envelope(xmin: min(i0, i1), ymin: min(j0, j1), xmax: max(i0, i1), ymax: max(j0, j1))
        }
    }

    /// One part: the first vertex's cell, then differences, a vertex on the previous one's cell dropped, at least
    /// `minimum` vertices kept (the last vertex is kept, as `[0, 0]`, to make up the count).
    private func encode(_ part: [[Double]], minimum: Int) -> [[Double]] {
        var encoded: [[Double]] = []
        encoded.reserveCapacity(part.count)
        var previous: (Double, Double)?
        for vertex in part where vertex.count >= 2 {
            let (i, j) = cell(vertex[0], vertex[1])
            if let (pi, pj) = previous {
                if i == pi && j == pj { continue }
                encoded.append([i - pi, j - pj])
            } else {
                encoded.append([i, j])
            }
            previous = (i, j)
        }
        if !encoded.isEmpty { while encoded.count < minimum { encoded.append([0, 0]) } }
        return encoded
    }

    private static func invalid(_ reason: String) -> ServiceError {
        ServiceError.invalidParameter("quantizationParameters", reason: reason)
    }

    private static func option<T: RawRepresentable & CaseIterable>(
        _ value: JSONValue?, name: String, default defaultValue: T
    ) throws(ServiceError) -> T where T.RawValue == String {
        guard let value, value != .null else { return defaultValue }
        guard let text = value.stringValue, let option = T.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
            throw invalid("\(name) must be one of \(T.allCases.map { $0.rawValue }.joined(separator: ", "))")
        }
        return option
    }

    /// The grid's extent in the output spatial reference.
    private static func extent(_ value: JSONValue?, output: QuerySpatialReference, layerExtent: Extent?) throws(ServiceError) -> Extent? {
        guard let value, value != .null else {
            guard let layerExtent else { return nil }
            let reference = layerExtent.spatialReference.flatMap { $0.wkid.flatMap { QuerySpatialReference(wkid: Int64($0)) } } ?? .wgs84
            return project(layerExtent, from: reference, to: output)
        }
        guard case .object(let members) = value,
            let xmin = members["xmin"]?.doubleValue, let ymin = members["ymin"]?.doubleValue,
            let xmax = members["xmax"]?.doubleValue, let ymax = members["ymax"]?.doubleValue,
            [xmin, ymin, xmax, ymax].allSatisfy(\.isFinite), xmin <= xmax, ymin <= ymax
        else { throw invalid("extent must be {\"xmin\":…,\"ymin\":…,\"xmax\":…,\"ymax\":…} with xmin ≤ xmax and ymin ≤ ymax") }
        var reference = output
        if let stated = members["spatialReference"], stated != .null {
            guard let wkid = QuerySpatialReference.wkid(in: stated), let known = QuerySpatialReference(wkid: wkid) else {
                throw invalid("extent.spatialReference: supported are 4326 and 102100 (3857)")
            }
            reference = known
        }
        return project(Extent(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax), from: reference, to: output)
    }

    private static func project(_ extent: Extent, from source: QuerySpatialReference, to target: QuerySpatialReference) -> Extent {
        guard source != target else { return extent }
        let corners: [(Double, Double)]
        if target == .webMercator {
            corners = [(extent.xmin, extent.ymin), (extent.xmax, extent.ymax)].map { QuerySpatialReference.project(longitude: $0.0, latitude: $0.1) }
        } else {
            corners = [(extent.xmin, extent.ymin), (extent.xmax, extent.ymax)].map {
                let degrees = QuerySpatialReference.unproject(x: $0.0, y: $0.1)
                return (degrees.longitude, degrees.latitude)
            }
        }
        return Extent(xmin: corners[0].0, ymin: corners[0].1, xmax: corners[1].0, ymax: corners[1].1)
    }
}
