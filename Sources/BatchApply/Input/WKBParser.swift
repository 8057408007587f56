/// Reads OGC well-known binary (ISO and EWKB flavours) and GeoPackage binary geometries.
///
/// Point, LineString, Polygon, MultiPoint, MultiLineString and MultiPolygon in either byte order; Z, M and ZM by
/// ISO codes (1000s, 2000s, 3000s) or EWKB flags (with an optional SRID); M is dropped. Pure: no I/O.
package enum WKBParser {
    /// The geometry in WKB `bytes` (an empty point, x and y NaN, is `.empty`; one NaN coordinate is kept, for
    /// conversion to refuse).
    /// - Throws: ``GeometryProblem`` for truncated bytes, an unknown byte order or a type not listed above.
    package static func parse(_ bytes: [UInt8]) throws(GeometryProblem) -> SimpleGeometry {
        var reader = Reader(bytes: bytes, index: 0)
        let geometry = try reader.geometry(depth: 0)
        return geometry
    }

    /// The geometry and `srs_id` in a GeoPackage geometry blob (OGC 12-128r18 §2.1.3): the "GP" header — magic,
    /// version, flags (byte order of the header, envelope kind 0–4, empty flag), srs_id, envelope — then WKB.
    /// - Throws: ``GeometryProblem`` for a bad header, an extended (non-standard) geometry, or bad WKB.
    package static func parseGeoPackage(_ bytes: [UInt8]) throws(GeometryProblem) -> (geometry: SimpleGeometry, srsID: Int32) {
        guard bytes.count >= 8, bytes[0] == UInt8(ascii: "G"), bytes[1] == UInt8(ascii: "P") else {
            throw GeometryProblem("not a GeoPackage geometry: it does not start with \"GP\"")
        }
        guard bytes[2] == 0 else { throw GeometryProblem("GeoPackage geometry version \(bytes[2]) is not supported (only 0)") }
        let flags = bytes[3]
        if flags & 0b0010_0000 != 0 { throw GeometryProblem("extended GeoPackage geometries are not supported") }
        let isEmpty = flags & 0b0001_0000 != 0
        let envelopeKind = (flags >> 1) & 0b111
        let envelopeBytes: Int
        switch envelopeKind {
        case 0: envelopeBytes = 0
        case 1: envelopeBytes = 32
        case 2, 3: envelopeBytes = 48
        case 4: envelopeBytes = 64
        default: throw GeometryProblem("GeoPackage geometry has an invalid envelope indicator \(envelopeKind)")
        }
        var header = Reader(bytes: bytes, index: 4)
        header.littleEndian = flags & 1 == 1
        let srsID = Int32(bitPattern: try header.uint32())
        let start = 8 + envelopeBytes
        guard bytes.count >= start else { throw GeometryProblem("GeoPackage geometry is cut short inside its envelope") }
        if isEmpty && bytes.count == start { return (.empty, srsID) }
        let geometry = try parse(Array(bytes[start...]))
        if !isEmpty, case .empty = geometry {
            // The header must flag an empty geometry (§2.1.3); NaN coordinates alone are a broken point, not a
            // feature without geometry.
            throw GeometryProblem("the point's coordinates are NaN, but its GeoPackage header does not mark it empty")
        }
        return (isEmpty ? .empty : geometry, srsID)
    }

    private struct Reader {
        let bytes: [UInt8]
        var index: Int
        var littleEndian = true

        mutating func uint32() throws(GeometryProblem) -> UInt32 {
            try unsigned(UInt32.self)
        }

        mutating func double() throws(GeometryProblem) -> Double {
            Double(bitPattern: try unsigned(UInt64.self))
        }

        /// The next `T`, in the current byte order.
        private mutating func unsigned<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) throws(GeometryProblem) -> T {
            let size = MemoryLayout<T>.size
            guard index + size <= bytes.count else { throw GeometryProblem("WKB is cut short at byte \(index)") }
            var value: T = 0
            for offset in 0..<size {
                value = value << 8 | T(bytes[index + (littleEndian ? size - 1 - offset : offset)])
            }
            index += size
            return value
        }

        mutating func count() throws(GeometryProblem) -> Int {
            let value = Int(try uint32())
            // Each item takes at least 8 bytes (a coordinate), so a count beyond that is corrupt, not a huge array.
            guard value <= (bytes.count - index) else { throw GeometryProblem("WKB count \(value) at byte \(index - 4) exceeds its bytes") }
            return value
        }

        /// Reads a byte-order byte and a type; returns the base type (1…7) and coordinates per position and
        /// whether the third is a measure.
        mutating func header() throws(GeometryProblem) -> (type: UInt32, dimensions: Int, measureThird: Bool) {
            guard index < bytes.count else { throw GeometryProblem("WKB is cut short at byte \(index)") }
            switch bytes[index] {
            case 0: littleEndian = false
            case 1: littleEndian = true
            default: throw GeometryProblem("WKB byte order at byte \(index) is \(bytes[index]); expected 0 or 1")
            }
            index += 1
            let raw = try uint32()
            // EWKB: high bits flag Z (0x80000000), M (0x40000000) and an SRID (0x20000000).
            var hasZ = raw & 0x8000_0000 != 0
            var hasM = raw & 0x4000_0000 != 0
            if raw & 0x2000_0000 != 0 { _ = try uint32() }
            let code = raw & 0x0FFF_FFFF
            switch code / 1000 {
            case 1: hasZ = true
            case 2: hasM = true
            case 3:
                hasZ = true
                hasM = true
            default: break
            }
            return (code % 1000, 2 + (hasZ ? 1 : 0) + (hasM ? 1 : 0), hasM && !hasZ)
        }

        mutating func position(_ dimensions: Int, _ measureThird: Bool) throws(GeometryProblem) -> [Double] {
            var position: [Double] = []
            position.reserveCapacity(3)
            for axis in 0..<dimensions {
                let value = try double()
                if axis < 2 || (axis == 2 && !measureThird) { position.append(value) }
            }
            return position
        }

        mutating func positions(_ dimensions: Int, _ measureThird: Bool) throws(GeometryProblem) -> [[Double]] {
            let count = try count()
            var result: [[Double]] = []
            result.reserveCapacity(count)
            for _ in 0..<count { result.append(try position(dimensions, measureThird)) }
            return result
        }

        mutating func rings(_ dimensions: Int, _ measureThird: Bool) throws(GeometryProblem) -> [[[Double]]] {
            let count = try count()
            var result: [[[Double]]] = []
            for _ in 0..<count { result.append(try positions(dimensions, measureThird)) }
            return result
        }

        mutating func geometry(depth: Int) throws(GeometryProblem) -> SimpleGeometry {
            let (type, dimensions, measureThird) = try header()
            switch type {
            case 1:
                let point = try position(dimensions, measureThird)
                // POINT EMPTY is x and y NaN; one NaN beside a number is a bad point, which conversion refuses.
                return point.prefix(2).allSatisfy(\.isNaN) ? .empty : .point(point)
            case 2: return .lineString(try positions(dimensions, measureThird))
            case 3: return .polygon(try rings(dimensions, measureThird))
            case 4, 5, 6:
                guard depth == 0 else { throw GeometryProblem("WKB nests a multi-geometry inside another") }
                let count = try count()
                var parts: [SimpleGeometry] = []
                for _ in 0..<count { parts.append(try geometry(depth: depth + 1)) }
                return try Self.collect(parts, into: type)
            case 7: throw GeometryProblem("GeometryCollection is not supported; ArcGIS layers hold one geometry type")
            default: throw GeometryProblem("WKB geometry type \(type) is not supported")
            }
        }

        static func collect(_ parts: [SimpleGeometry], into type: UInt32) throws(GeometryProblem) -> SimpleGeometry {
            var points: [[Double]] = []
            var lines: [[[Double]]] = []
            var polygons: [[[[Double]]]] = []
            for part in parts {
                switch (type, part) {
                case (4, .point(let p)): points.append(p)
                case (4, .empty): continue
                case (5, .lineString(let l)): lines.append(l)
                case (6, .polygon(let r)): polygons.append(r)
                default: throw GeometryProblem("WKB multi-geometry of type \(type) holds a part of another type")
                }
            }
            switch type {
            case 4: return .multiPoint(points)
            case 5: return .multiLineString(lines)
            default: return .multiPolygon(polygons)
            }
        }
    }
}
