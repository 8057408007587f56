import BatchApply
import FeatureModel
import Testing

/// Builds WKB and GeoPackage geometry bytes in either byte order.
struct WKBBuilder {
    var littleEndian: Bool
    var bytes: [UInt8] = []

    mutating func uint32(_ value: UInt32) {
        let big = [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        bytes += littleEndian ? big.reversed() : big
    }

    mutating func double(_ value: Double) {
        let bits = value.bitPattern
        let big = (0..<8).map { UInt8(bits >> (56 - 8 * UInt64($0)) & 0xFF) }
        bytes += littleEndian ? big.reversed() : big
    }

    mutating func header(_ type: UInt32) {
        bytes.append(littleEndian ? 1 : 0)
        uint32(type)
    }

    mutating func positions(_ positions: [[Double]]) {
        uint32(UInt32(positions.count))
        for position in positions { for value in position { double(value) } }
    }

    static func polygon(_ rings: [[[Double]]], type: UInt32 = 3, littleEndian: Bool) -> [UInt8] {
        var builder = WKBBuilder(littleEndian: littleEndian)
        builder.header(type)
        builder.uint32(UInt32(rings.count))
        for ring in rings { builder.positions(ring) }
        return builder.bytes
    }

    /// A GeoPackage geometry: "GP", version 0, flags, srs_id, an envelope of the indicated size, then `wkb`.
    static func geoPackage(_ wkb: [UInt8], srsID: UInt32 = 4326, envelope: UInt8, littleEndian: Bool = true, empty: Bool = false) -> [UInt8] {
        var builder = WKBBuilder(littleEndian: littleEndian)
        builder.bytes = [UInt8(ascii: "G"), UInt8(ascii: "P"), 0, (empty ? 0x10 : 0) | envelope << 1 | (littleEndian ? 1 : 0)]
        builder.uint32(srsID)
        let doubles = [0, 4, 6, 6, 8][Int(envelope)]
        for index in 0..<doubles { builder.double(Double(index)) }
        return builder.bytes + wkb
    }
}

@Suite struct WKBParserTests {
    static let square: [[Double]] = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]

    @Test("points and polygons read the same in both byte orders", arguments: [true, false])
    func byteOrders(littleEndian: Bool) throws {
        var point = WKBBuilder(littleEndian: littleEndian)
        point.header(1)
        point.double(1.5)
        point.double(-2)
        #expect(try WKBParser.parse(point.bytes) == .point([1.5, -2]))
        #expect(try WKBParser.parse(WKBBuilder.polygon([Self.square], littleEndian: littleEndian)) == .polygon([Self.square]))
    }

    @Test("ISO Z, M and ZM codes and EWKB flags: z kept, m dropped")
    func dimensions() throws {
        var z = WKBBuilder(littleEndian: true)
        z.header(1001)
        for value in [1.0, 2, 3] { z.double(value) }
        #expect(try WKBParser.parse(z.bytes) == .point([1, 2, 3]))
        var m = WKBBuilder(littleEndian: false)
        m.header(2002)
        m.positions([[0, 0, 7], [1, 1, 8]])
        #expect(try WKBParser.parse(m.bytes) == .lineString([[0, 0], [1, 1]]))
        var zm = WKBBuilder(littleEndian: true)
        zm.header(3001)
        for value in [1.0, 2, 3, 4] { zm.double(value) }
        #expect(try WKBParser.parse(zm.bytes) == .point([1, 2, 3]))
        var ewkb = WKBBuilder(littleEndian: true)
        ewkb.header(0x8000_0000 | 0x2000_0000 | 1)
        ewkb.uint32(4326)
        for value in [1.0, 2, 3] { ewkb.double(value) }
        #expect(try WKBParser.parse(ewkb.bytes) == .point([1, 2, 3]))
    }

    @Test("multi-geometries hold parts with their own byte orders")
    func multi() throws {
        var multi = WKBBuilder(littleEndian: true)
        multi.header(6)
        multi.uint32(2)
        multi.bytes += WKBBuilder.polygon([Self.square], littleEndian: false)
        multi.bytes += WKBBuilder.polygon([Self.square], littleEndian: true)
        #expect(try WKBParser.parse(multi.bytes) == .multiPolygon([[Self.square], [Self.square]]))
        var points = WKBBuilder(littleEndian: false)
        points.header(4)
        points.uint32(1)
        points.header(1)
        points.double(3)
        points.double(4)
        #expect(try WKBParser.parse(points.bytes) == .multiPoint([[3, 4]]))
    }

    @Test("an empty point (NaN) is empty; truncated bytes and collections are problems")
    func edges() throws {
        var empty = WKBBuilder(littleEndian: true)
        empty.header(1)
        empty.double(.nan)
        empty.double(.nan)
        #expect(try WKBParser.parse(empty.bytes) == .empty)
        #expect(throws: GeometryProblem.self) { try WKBParser.parse(Array(WKBBuilder.polygon([Self.square], littleEndian: true).dropLast(3))) }
        var collection = WKBBuilder(littleEndian: true)
        collection.header(7)
        collection.uint32(0)
        #expect(throws: GeometryProblem.self) { try WKBParser.parse(collection.bytes) }
    }

    @Test("the GeoPackage header is skipped for each envelope size, in both byte orders", arguments: [0, 1, 2, 3, 4] as [UInt8], [true, false])
    func geoPackageHeader(envelope: UInt8, littleEndian: Bool) throws {
        let wkb = WKBBuilder.polygon([Self.square], littleEndian: !littleEndian)
        let (geometry, srsID) = try WKBParser.parseGeoPackage(WKBBuilder.geoPackage(wkb, srsID: 3857, envelope: envelope, littleEndian: littleEndian))
        #expect(geometry == .polygon([Self.square]))
        #expect(srsID == 3857)
    }

    @Test("the empty flag and bad headers")
    func geoPackageEdges() throws {
        var empty = WKBBuilder(littleEndian: true)
        empty.header(3)
        empty.uint32(0)
        #expect(try WKBParser.parseGeoPackage(WKBBuilder.geoPackage(empty.bytes, envelope: 0, empty: true)).geometry == .empty)
        #expect(throws: GeometryProblem.self) { try WKBParser.parseGeoPackage(Array("XP".utf8) + [0, 1, 0, 0, 0, 0]) }
        #expect(throws: GeometryProblem.self) { try WKBParser.parseGeoPackage([0x47, 0x50, 0, 0b1010, 0, 0, 0, 0]) }
    }
}
