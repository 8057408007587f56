internal import CGEOS
package import FeatureModel

/// Why GEOS could not make or read a geometry: its own message, or what the input lacked.
package struct GEOSError: Error, Sendable, Hashable, CustomStringConvertible {
    package var message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}

/// One GEOS context: every geometry made from it and every call on them go through its handle.
///
/// Isolation: a context and its geometries are not thread-safe; use each from one thread (or serial executor) at a
/// time, as the store's reader threads do with one context each. Lifetime: the context outlives its geometries,
/// which hold it; it is finished when the last of them and the context are released. No call blocks or suspends.
package final class GEOSContext: @unchecked Sendable {
    let handle: GEOSContextHandle_t
    /// The last error GEOS reported through its message handler, taken by ``failure(_:)``.
    private let lastError: UnsafeMutablePointer<LastError>

    struct LastError {
        var message: String?
    }

    /// A new context whose errors are kept for the geometry call that caused them (GEOS prints none).
    /// - Throws: ``GEOSError`` when GEOS cannot allocate a context.
    package init() throws(GEOSError) {
        guard let handle = GEOS_init_r() else { throw GEOSError("GEOS could not create a context") }
        self.handle = handle
        lastError = .allocate(capacity: 1)
        lastError.initialize(to: LastError())
        GEOSContext_setErrorMessageHandler_r(
            handle,
            { message, userData in
                guard let message, let userData else { return }
                userData.assumingMemoryBound(to: LastError.self).pointee.message = String(cString: message)
            }, UnsafeMutableRawPointer(lastError))
    }

    deinit {
        GEOS_finish_r(handle)
        lastError.deinitialize(count: 1)
        lastError.deallocate()
    }

    /// The error for a GEOS call that returned nothing: GEOS's message if it gave one, else `what`.
    func failure(_ what: String) -> GEOSError {
        defer { lastError.pointee.message = nil }
        return GEOSError(lastError.pointee.message.map { "\(what): \($0)" } ?? what)
    }

    /// `geometry` as a GEOS geometry. Points, multipoints and polylines map one to one (a polyline of one path is a
    /// LineString, of several a MultiLineString); a polygon's rings are grouped as ArcGIS draws them: each clockwise
    /// ring is an outer ring, each counter-clockwise ring a hole of the outer ring that holds it; an envelope is its
    /// rectangle. Coordinates beyond x and y are dropped.
    /// - Throws: ``GEOSError`` for a ring of fewer than four points or one that does not close, a path of fewer
    ///   than two points, an empty or malformed coordinate, or a hole outside every outer ring.
    package func geometry(_ geometry: Geometry) throws(GEOSError) -> GEOSGeometry {
        switch geometry {
        case .point(let x, let y, _, _):
            return try wrap(GEOSGeom_createPointFromXY_r(handle, x, y), "point")
        case .multipoint(let points, _):
            var parts: [GEOSGeometry] = []
            for point in points {
                guard point.count >= 2 else { throw GEOSError("a multipoint's point needs x and y") }
                parts.append(try wrap(GEOSGeom_createPointFromXY_r(handle, point[0], point[1]), "point"))
            }
            return try collection(GEOS_MULTIPOINT, parts)
        case .polyline(let paths, _):
            var lines: [GEOSGeometry] = []
            for path in paths { lines.append(try lineString(path)) }
            return lines.count == 1 ? lines[0] : try collection(GEOS_MULTILINESTRING, lines)
        case .polygon(let rings, _):
            return try polygon(rings: rings)
        case .envelope(let xmin, let ymin, let xmax, let ymax, _):
            return try polygon(rings: [[[xmin, ymin], [xmin, ymax], [xmax, ymax], [xmax, ymin], [xmin, ymin]]])
        }
    }

    func wrap(_ pointer: OpaquePointer?, _ what: String) throws(GEOSError) -> GEOSGeometry {
        guard let pointer else { throw failure("GEOS could not make the \(what)") }
        return GEOSGeometry(owning: pointer, in: self)
    }

    /// A coordinate sequence of `points`' x and y.
    func sequence(_ points: [[Double]]) throws(GEOSError) -> OpaquePointer {
        var flat: [Double] = []
        flat.reserveCapacity(points.count * 2)
        for point in points {
            guard point.count >= 2, point[0].isFinite, point[1].isFinite else {
                throw GEOSError("a vertex needs finite x and y")
            }
            flat += [point[0], point[1]]
        }
        let made = flat.withUnsafeBufferPointer { GEOSCoordSeq_copyFromBuffer_r(handle, $0.baseAddress, UInt32(points.count), 0, 0) }
        guard let made else { throw failure("GEOS could not make a coordinate sequence") }
        return made
    }

    private func lineString(_ path: [[Double]]) throws(GEOSError) -> GEOSGeometry {
        guard path.count >= 2 else { throw GEOSError("a path needs at least two points, got \(path.count)") }
        return try wrap(GEOSGeom_createLineString_r(handle, try sequence(path)), "path")
    }

    /// A linear ring of `ring` and whether it runs clockwise (an ArcGIS outer ring).
    private func linearRing(_ ring: [[Double]]) throws(GEOSError) -> (ring: OpaquePointer, clockwise: Bool) {
        guard ring.count >= 4 else { throw GEOSError("a ring needs at least four points (closed), got \(ring.count)") }
        guard ring.first?.prefix(2) == ring.last?.prefix(2) else { throw GEOSError("a ring must end at its first point") }
        let coordinates = try sequence(ring)
        var counterClockwise: CChar = 0
        guard GEOSCoordSeq_isCCW_r(handle, coordinates, &counterClockwise) == 1 else {
            GEOSCoordSeq_destroy_r(handle, coordinates)
            throw failure("GEOS could not orient a ring")
        }
        guard let made = GEOSGeom_createLinearRing_r(handle, coordinates) else { throw failure("GEOS could not make a ring") }
        return (made, counterClockwise == 0)
    }

    /// A Polygon (one outer ring) or MultiPolygon from ArcGIS rings: clockwise outer rings, counter-clockwise holes.
    private func polygon(rings: [[[Double]]]) throws(GEOSError) -> GEOSGeometry {
        var shells: [(ring: OpaquePointer, holes: [OpaquePointer])] = []
        var holes: [OpaquePointer] = []
        var made: [OpaquePointer] = []
        defer {
            // Rings not taken over by a polygon are freed here.
            for ring in made { GEOSGeom_destroy_r(handle, ring) }
        }
        for ring in rings {
            let (linear, clockwise) = try linearRing(ring)
            made.append(linear)
            if clockwise { shells.append((linear, [])) } else { holes.append(linear) }
        }
        guard !shells.isEmpty else {
            // A single counter-clockwise ring: drawn as ArcGIS clients do, as an outer ring.
            guard holes.count == 1 else { throw GEOSError("a polygon needs a clockwise outer ring") }
            return try makePolygons([(holes[0], [])], taking: &made)
        }
        for hole in holes {
            var holder: Int?
            for (index, shell) in shells.enumerated() where try contains(ring: shell.ring, hole) {
                holder = index
                break
            }
            guard let holder else { throw GEOSError("a hole (counter-clockwise ring) lies outside every outer ring") }
            shells[holder].holes.append(hole)
        }
        return try makePolygons(shells, taking: &made)
    }

    /// Whether the area of `ring` covers `hole`.
    private func contains(ring: OpaquePointer, _ hole: OpaquePointer) throws(GEOSError) -> Bool {
        guard let shellCopy = GEOSGeom_clone_r(handle, ring), let holeCopy = GEOSGeom_clone_r(handle, hole) else {
            throw failure("GEOS could not copy a ring")
        }
        let area = try wrap(GEOSGeom_createPolygon_r(handle, shellCopy, nil, 0), "ring's area")
        let inner = try wrap(GEOSGeom_createPolygon_r(handle, holeCopy, nil, 0), "hole's area")
        return GEOSCovers_r(handle, area.pointer, inner.pointer) == 1
    }

    private func makePolygons(
        _ shells: [(ring: OpaquePointer, holes: [OpaquePointer])], taking made: inout [OpaquePointer]
    ) throws(GEOSError)
        -> GEOSGeometry
    {
        var polygons: [GEOSGeometry] = []
        for shell in shells {
            var holes: [OpaquePointer?] = shell.holes
            let polygon = holes.withUnsafeMutableBufferPointer { GEOSGeom_createPolygon_r(handle, shell.ring, $0.baseAddress, UInt32($0.count)) }
            // GEOS owns the rings from here, made or not.
            let taken = Set([shell.ring] + shell.holes)
            made.removeAll { taken.contains($0) }
            polygons.append(try wrap(polygon, "polygon"))
        }
        return polygons.count == 1 ? polygons[0] : try collection(GEOS_MULTIPOLYGON, polygons)
    }

    /// A collection of `type` that takes over `parts`.
    func collection(_ type: GEOSGeomTypes, _ parts: [GEOSGeometry]) throws(GEOSError) -> GEOSGeometry {
        var pointers: [OpaquePointer?] = parts.map { $0.release() }
        let made = pointers.withUnsafeMutableBufferPointer {
            GEOSGeom_createCollection_r(handle, Int32(type.rawValue), $0.baseAddress, UInt32($0.count))
        }
        return try wrap(made, "collection")
    }
}
