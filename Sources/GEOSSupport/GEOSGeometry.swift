internal import CGEOS
import FeatureModel

/// A GEOS geometry, owned: destroyed with this object unless a collection took it over.
///
/// Isolation: as its ``GEOSContext``, one thread at a time. Lifetime: holds its context.
package final class GEOSGeometry: @unchecked Sendable {
    private(set) var pointer: OpaquePointer
    private var owned = true
    let context: GEOSContext

    init(owning pointer: OpaquePointer, in context: GEOSContext) {
        self.pointer = pointer
        self.context = context
    }

    deinit {
        if owned { GEOSGeom_destroy_r(context.handle, pointer) }
    }

    /// Hands the pointer to a GEOS call that takes ownership (a collection).
    func release() -> OpaquePointer {
        owned = false
        return pointer
    }

    /// Whether the two share any point, boundaries included.
    package func intersects(_ other: GEOSGeometry) -> Bool { GEOSIntersects_r(context.handle, pointer, other.pointer) == 1 }

    /// Whether `other` lies in this geometry, no point of it outside, and their interiors meet (OGC contains).
    package func contains(_ other: GEOSGeometry) -> Bool { GEOSContains_r(context.handle, pointer, other.pointer) == 1 }

    /// Whether this geometry lies in `other` (OGC within: `other.contains(self)`).
    package func within(_ other: GEOSGeometry) -> Bool { GEOSWithin_r(context.handle, pointer, other.pointer) == 1 }

    /// The bounding box, or nil for an empty geometry.
    package var envelope: (xmin: Double, ymin: Double, xmax: Double, ymax: Double)? {
        guard GEOSisEmpty_r(context.handle, pointer) == 0 else { return nil }
        var box = (0.0, 0.0, 0.0, 0.0)
        guard GEOSGeom_getXMin_r(context.handle, pointer, &box.0) == 1, GEOSGeom_getYMin_r(context.handle, pointer, &box.1) == 1,
            GEOSGeom_getXMax_r(context.handle, pointer, &box.2) == 1, GEOSGeom_getYMax_r(context.handle, pointer, &box.3) == 1
        else { return nil }
        return box
    }

    /// The number of vertices.
    package var vertexCount: Int { Int(GEOSGetNumCoordinates_r(context.handle, pointer)) }

    /// Simplified so that no point moves more than `tolerance` and no ring or part collapses or crosses another
    /// (GEOS' topology-preserving simplify, Douglas-Peucker under constraints). Points are returned unchanged.
    /// - Throws: ``GEOSError`` when GEOS fails.
    package func simplified(tolerance: Double) throws(GEOSError) -> GEOSGeometry {
        try context.wrap(GEOSTopologyPreserveSimplify_r(context.handle, pointer, tolerance), "simplified geometry")
    }

    /// A prepared copy for testing many geometries against this one (a query's filter geometry).
    /// - Throws: ``GEOSError`` when GEOS fails.
    package func prepared() throws(GEOSError) -> PreparedGEOSGeometry {
        guard let prepared = GEOSPrepare_r(context.handle, pointer) else { throw context.failure("GEOS could not prepare a geometry") }
        return PreparedGEOSGeometry(prepared, of: self)
    }
}

/// A geometry prepared for repeated predicates (its edges indexed once).
///
/// Isolation: as its ``GEOSContext``. Lifetime: holds the geometry it was prepared from.
package final class PreparedGEOSGeometry: @unchecked Sendable {
    private let pointer: OpaquePointer
    /// The geometry it was made from, which must outlive it.
    package let geometry: GEOSGeometry

    init(_ pointer: OpaquePointer, of geometry: GEOSGeometry) {
        self.pointer = pointer
        self.geometry = geometry
    }

    deinit { GEOSPreparedGeom_destroy_r(geometry.context.handle, pointer) }

    /// Whether `other` shares any point with the prepared geometry.
    package func intersects(_ other: GEOSGeometry) -> Bool { GEOSPreparedIntersects_r(geometry.context.handle, pointer, other.pointer) == 1 }

    /// Whether the prepared geometry contains `other` (OGC contains).
    package func contains(_ other: GEOSGeometry) -> Bool { GEOSPreparedContains_r(geometry.context.handle, pointer, other.pointer) == 1 }

    /// Whether the prepared geometry lies within `other` (OGC within).
    package func within(_ other: GEOSGeometry) -> Bool { GEOSPreparedWithin_r(geometry.context.handle, pointer, other.pointer) == 1 }
}
