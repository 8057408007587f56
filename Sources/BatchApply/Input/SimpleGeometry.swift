package import FeatureModel

/// Why a geometry in an input record cannot be used, in words that name the part at fault.
package struct GeometryProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, e.g. "ring 2 of polygon 1 has 3 positions; a ring needs at least 4".
    package var reason: String

    /// A problem with the given reason.
    package init(_ reason: String) { self.reason = reason }

    package var description: String { reason }
}

/// An OGC simple-features geometry (GeoJSON, WKT and WKB all share this model), before it becomes Esri JSON.
///
/// Positions are `[x, y]` or `[x, y, z]`; measures (m) are dropped by the parsers. Pure value, `Sendable`.
package enum SimpleGeometry: Sendable, Hashable {
    /// One position.
    case point([Double])
    /// Positions.
    case multiPoint([[Double]])
    /// A line through positions.
    case lineString([[Double]])
    /// Lines.
    case multiLineString([[[Double]]])
    /// Rings: the exterior first, then holes.
    case polygon([[[Double]]])
    /// Polygons, each its rings.
    case multiPolygon([[[[Double]]]])
    /// A geometry with no coordinates (`POINT EMPTY`, an empty GeoPackage geometry).
    case empty

    /// The Esri JSON geometry: point, multipoint, polyline (paths) or polygon (rings, exteriors clockwise and holes
    /// counter-clockwise, closed), with `spatialReference` on it; nil for an empty geometry.
    ///
    /// - Throws: ``GeometryProblem`` when a line has fewer than 2 positions, a ring fewer than 4 or is not
    ///   closed, or a position has fewer than 2 coordinates or a non-finite one.
    package func esriGeometry(spatialReference: SpatialReference?) throws(GeometryProblem) -> Geometry? {
        switch self {
        case .empty:
            return nil
        case .point(let position):
            try Self.check(position, "point")
            return .point(x: position[0], y: position[1], z: position.count > 2 ? position[2] : nil, spatialReference: spatialReference)
        case .multiPoint(let points):
            if points.isEmpty { return nil }
            for (index, point) in points.enumerated() { try Self.check(point, "point \(index + 1) of multipoint") }
            return .multipoint(points: points, spatialReference: spatialReference)
        case .lineString(let line):
            if line.isEmpty { return nil }
            try Self.checkLine(line, "linestring")
            return .polyline(paths: [line], spatialReference: spatialReference)
        case .multiLineString(let lines):
            if lines.isEmpty { return nil }
            for (index, line) in lines.enumerated() { try Self.checkLine(line, "line \(index + 1) of multilinestring") }
            return .polyline(paths: lines, spatialReference: spatialReference)
        case .polygon(let rings):
            if rings.isEmpty { return nil }
            return .polygon(rings: try Self.orientedRings(rings, "polygon"), spatialReference: spatialReference)
        case .multiPolygon(let polygons):
            var rings: [[[Double]]] = []
            for (index, polygon) in polygons.enumerated() where !polygon.isEmpty {
                rings += try Self.orientedRings(polygon, "polygon \(index + 1) of multipolygon")
            }
            if rings.isEmpty { return nil }
            return .polygon(rings: rings, spatialReference: spatialReference)
        }
    }

    /// Twice the signed area of a ring by the shoelace formula: positive when the ring runs counter-clockwise
    /// (x to the right, y up), negative when clockwise.
    package static func signedDoubleArea(_ ring: [[Double]]) -> Double {
        guard ring.count > 2 else { return 0 }
        var sum = 0.0
        // Relative to the first vertex, so large projected coordinates keep their precision.
        let x0 = ring[0][0]
        let y0 = ring[0][1]
        for index in 0..<(ring.count - 1) {
            let a = ring[index]
            let b = ring[index + 1]
            sum += (a[0] - x0) * (b[1] - y0) - (b[0] - x0) * (a[1] - y0)
        }
        return sum
    }

    /// The rings of one polygon, checked and oriented the Esri way: the first (exterior) clockwise, the rest
    /// (holes) counter-clockwise.
    static func orientedRings(_ rings: [[[Double]]], _ name: String) throws(GeometryProblem) -> [[[Double]]] {
        var result: [[[Double]]] = []
        result.reserveCapacity(rings.count)
        for (index, ring) in rings.enumerated() {
            let what = "ring \(index + 1) of \(name)"
            for (positionIndex, position) in ring.enumerated() { try check(position, "position \(positionIndex + 1) of \(what)") }
            guard ring.count >= 4 else { throw GeometryProblem("\(what) has \(ring.count) positions; a ring needs at least 4") }
            guard ring[0] == ring[ring.count - 1] else {
                throw GeometryProblem("\(what) is not closed: its first and last positions differ")
            }
            let area = signedDoubleArea(ring)
            let isExterior = index == 0
            // Exterior clockwise (negative area), holes counter-clockwise (positive area).
            let wrongWay = isExterior ? area > 0 : area < 0
            result.append(wrongWay ? ring.reversed() : ring)
        }
        return result
    }

    static func checkLine(_ line: [[Double]], _ name: String) throws(GeometryProblem) {
        for (index, position) in line.enumerated() { try check(position, "position \(index + 1) of \(name)") }
        guard line.count >= 2 else { throw GeometryProblem("\(name) has \(line.count) position; a line needs at least 2") }
    }

    static func check(_ position: [Double], _ name: String) throws(GeometryProblem) {
        guard position.count >= 2 else {
            throw GeometryProblem("\(name) has \(position.count) coordinate\(position.count == 1 ? "" : "s"); a position needs x and y")
        }
        guard position.allSatisfy(\.isFinite) else { throw GeometryProblem("\(name) has a coordinate that is not a finite number") }
    }
}
