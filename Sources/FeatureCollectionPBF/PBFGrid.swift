import FeatureModel

/// The grid an answer's real coordinates are written on when the query asked for no quantization: fine enough to
/// give the coordinates back, coarse enough that every integer stays exact.
///
/// - The cell is the spatial reference's XY resolution as ArcGIS sets it by default: 1e-9 degrees (about 0.1 mm at the
///   equator) for a geographic system, 1e-4 units (0.1 mm in metres) for a projected one. A coordinate comes back
///   within half a cell of itself, and one that already lies on that resolution (as ArcGIS' own stores keep them)
///   comes back on the same grid point.
/// - The origin is the upper left corner of the answer's geometries snapped down (x) and up (y) to a whole cell, so
///   every cell index is at least 0 and a part's first vertex is a small number; the origin is `upperLeft`, as ArcGIS
///   answers, so rows count down from the top (`y = translate.y − j × scale.y`).
/// - The cell grows tenfold while the answer's width or height would span 2^52 cells or more: a grid coordinate and a
///   difference of two of them stay integers that a Double holds exactly (< 2^53), far inside the sint64 the wire
///   carries. A world in degrees spans 3.6e11 cells and one in Web Mercator metres 4e11, so this never happens there.
struct PBFGrid: Sendable, Hashable {
    /// The grid as an answer states it.
    var transform: QuantizationTransform

    /// The largest cell count across an answer that keeps its integers exact in a Double.
    static let exactCells = 4_503_599_627_370_496.0  // 2^52

    /// The grid for `features` in `spatialReference`.
    /// - Parameters:
    ///   - features: The answer's features, with real coordinates.
    ///   - spatialReference: Their spatial reference; geographic when its ID is in EPSG's or Esri's geographic ranges.
    init(features: [Feature], spatialReference: SpatialReference?) {
        var bounds = Bounds()
        for feature in features { if let geometry = feature.geometry { bounds.add(geometry) } }
        var cell = Self.isGeographic(spatialReference) ? 1e-9 : 1e-4
        guard let box = bounds.box else {
            transform = QuantizationTransform(originPosition: .upperLeft, scale: [cell, cell, 0, 0], translate: [0, 0, 0, 0])
            return
        }
        while max(box.xmax - box.xmin, box.ymax - box.ymin) / cell >= Self.exactCells / 2 { cell *= 10 }
        let left = (box.xmin / cell).rounded(.down) * cell
        let top = (box.ymax / cell).rounded(.up) * cell
        transform = QuantizationTransform(originPosition: .upperLeft, scale: [cell, cell, 0, 0], translate: [left, top, 0, 0])
    }

    /// Whether `reference` is a geographic (degrees) system: EPSG 4000–4999 or Esri 37001–37999 and 104000–104999.
    static func isGeographic(_ reference: SpatialReference?) -> Bool {
        guard let id = reference?.latestWkid ?? reference?.wkid else { return false }
        return (4000...4999).contains(id) || (37001...37999).contains(id) || (104000...104999).contains(id)
    }

    /// The cell of a real coordinate.
    func cell(_ x: Double, _ y: Double) -> (Double, Double) {
        let scale = transform.scale
        let i = ((x - transform.translate[0]) / scale[0]).rounded()
        let offset = transform.originPosition == .upperLeft ? transform.translate[1] - y : y - transform.translate[1]
        return (i, (offset / scale[1]).rounded())
    }

    /// `geometry` on the grid, each part's first vertex absolute and every later one as a difference; every vertex
    /// is kept (two on one cell give a difference of zero), so a decoded part has as many vertices as the stored one.
    func quantize(_ geometry: Geometry) -> Geometry {
        switch geometry {
        case .point(let x, let y, _, _):
            let (i, j) = cell(x, y)
            return .point(x: i, y: j)
        case .multipoint(let points, _):
            return .multipoint(points: differences(points))
        case .polyline(let paths, _):
            return .polyline(paths: paths.map(differences))
        case .polygon(let rings, _):
            return .polygon(rings: rings.map(differences))
        case .envelope(let xmin, let ymin, let xmax, let ymax, _):
            return .polygon(rings: [differences([[xmin, ymin], [xmin, ymax], [xmax, ymax], [xmax, ymin], [xmin, ymin]])])
        }
    }

    private func differences(_ part: [[Double]]) -> [[Double]] {
        var previous: (Double, Double)?
        return part.compactMap { vertex in
            guard vertex.count >= 2 else { return nil }
            let (i, j) = cell(vertex[0], vertex[1])
            defer { previous = (i, j) }
            guard let (pi, pj) = previous else { return [i, j] }
            return [i - pi, j - pj]
        }
    }

    /// The extent of an answer's finite vertices.
    private struct Bounds {
        var box: (xmin: Double, ymin: Double, xmax: Double, ymax: Double)?

        mutating func add(_ geometry: Geometry) {
            switch geometry {
            case .point(let x, let y, _, _): add(x, y)
            case .multipoint(let points, _): for vertex in points { add(vertex) }
            case .polyline(let parts, _), .polygon(let parts, _): for part in parts { for vertex in part { add(vertex) } }
            case .envelope(let xmin, let ymin, let xmax, let ymax, _):
                add(xmin, ymin)
                add(xmax, ymax)
            }
        }

        private mutating func add(_ vertex: [Double]) { if vertex.count >= 2 { add(vertex[0], vertex[1]) } }

        private mutating func add(_ x: Double, _ y: Double) {
            guard x.isFinite, y.isFinite else { return }
            guard let current = box else {
                box = (x, y, x, y)
                return
            }
            box = (min(current.xmin, x), min(current.ymin, y), max(current.xmax, x), max(current.ymax, y))
        }
    }
}
