internal import CGEOS
package import FeatureModel

extension GEOSGeometry {
    /// The geometry as ArcGIS JSON draws it: a point, a multipoint, a polyline's paths, or a polygon's rings with outer
    /// rings clockwise and holes counter-clockwise (GEOS' normal form), in the order GEOS holds the parts.
    /// - Throws: ``GEOSError`` for a geometry collection of mixed kinds, which ArcGIS has no geometry for.
    package func arcGIS() throws(GEOSError) -> Geometry {
        let handle = context.handle
        switch Int(GEOSGeomTypeId_r(handle, pointer)) {
        case Int(GEOS_POINT.rawValue):
            let point = try coordinates(of: pointer)
            return point.first.map { .point(x: $0[0], y: $0[1]) } ?? .point(x: .nan, y: .nan)
        case Int(GEOS_MULTIPOINT.rawValue):
            var points: [[Double]] = []
            for part in try parts() { points += try coordinates(of: part) }
            return .multipoint(points: points)
        case Int(GEOS_LINESTRING.rawValue), Int(GEOS_LINEARRING.rawValue):
            return .polyline(paths: [try coordinates(of: pointer)])
        case Int(GEOS_MULTILINESTRING.rawValue):
            var paths: [[[Double]]] = []
            for part in try parts() { paths.append(try coordinates(of: part)) }
            return .polyline(paths: paths)
        case Int(GEOS_POLYGON.rawValue), Int(GEOS_MULTIPOLYGON.rawValue):
            return .polygon(rings: try polygons().flatMap { $0 })
        default:
            throw GEOSError("a geometry collection of mixed kinds has no ArcGIS geometry")
        }
    }

    /// The polygons of a Polygon or MultiPolygon, each its outer ring then its holes, outer rings clockwise and holes
    /// counter-clockwise (GEOS' normal form), in the order GEOS holds them; empty rings left out. Nothing for other
    /// kinds.
    package func polygons() throws(GEOSError) -> [[[[Double]]]] {
        let handle = context.handle
        let kind = Int(GEOSGeomTypeId_r(handle, pointer))
        guard kind == Int(GEOS_POLYGON.rawValue) || kind == Int(GEOS_MULTIPOLYGON.rawValue) else { return [] }
        guard let normal = GEOSGeom_clone_r(handle, pointer) else { throw context.failure("GEOS could not copy a polygon") }
        let copy = GEOSGeometry(owning: normal, in: context)
        guard GEOSNormalize_r(handle, normal) == 0 else { throw context.failure("GEOS could not orient a polygon") }
        let parts = kind == Int(GEOS_POLYGON.rawValue) ? [normal] : try copy.parts()
        var polygons: [[[[Double]]]] = []
        for polygon in parts {
            guard let shell = GEOSGetExteriorRing_r(handle, polygon) else { throw context.failure("GEOS has no outer ring") }
            var rings = [try coordinates(of: shell)]
            for index in 0..<max(0, GEOSGetNumInteriorRings_r(handle, polygon)) {
                guard let hole = GEOSGetInteriorRingN_r(handle, polygon, index) else { throw context.failure("GEOS lost a hole") }
                rings.append(try coordinates(of: hole))
            }
            rings.removeAll { $0.isEmpty }
            if !rings.isEmpty { polygons.append(rings) }
        }
        return polygons
    }

    /// The parts of a multi-geometry, borrowed (owned by it).
    private func parts() throws(GEOSError) -> [OpaquePointer] {
        let count = GEOSGetNumGeometries_r(context.handle, pointer)
        guard count >= 0 else { throw context.failure("GEOS could not count the parts") }
        var parts: [OpaquePointer] = []
        for index in 0..<count {
            guard let part = GEOSGetGeometryN_r(context.handle, pointer, index) else { throw context.failure("GEOS lost a part") }
            parts.append(part)
        }
        return parts
    }

    /// The x, y of a point, line string or ring (borrowed), in order.
    private func coordinates(of geometry: OpaquePointer) throws(GEOSError) -> [[Double]] {
        let handle = context.handle
        if GEOSisEmpty_r(handle, geometry) == 1 { return [] }
        guard let sequence = GEOSGeom_getCoordSeq_r(handle, geometry) else { throw context.failure("GEOS has no coordinates") }
        var size: UInt32 = 0
        guard GEOSCoordSeq_getSize_r(handle, sequence, &size) == 1 else { throw context.failure("GEOS could not count coordinates") }
        var flat = [Double](repeating: 0, count: Int(size) * 2)
        let copied = flat.withUnsafeMutableBufferPointer { GEOSCoordSeq_copyToBuffer_r(handle, sequence, $0.baseAddress, 0, 0) }
        guard copied == 1 else { throw context.failure("GEOS could not copy coordinates") }
        return stride(from: 0, to: flat.count, by: 2).map { [flat[$0], flat[$0 + 1]] }
    }
}
