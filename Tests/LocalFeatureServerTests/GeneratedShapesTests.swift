import FeatureModel
import Testing

@testable import LocalFeatureServer

/// The polygons and polylines `serve --rows N` generates: seeded, inside the layer's extent, closed rings, and
/// vertex counts spread as real boundaries and trails are (checked here on the generator's own output; validity,
/// winding and holes are checked by shapely over HTTP in ``GeneratedShapesHTTPTests``).
@Suite struct GeneratedShapesTests {
    static let rows = 400

    /// The `parkboundaries` dataset with `rows` generated rows per layer.
    static func parkBoundaries(rows: Int = rows) throws -> ServiceDefinition {
        let definition = try #require(ServiceDefinition.builtIn(named: "parkboundaries"))
        return RowGenerator.addingGeneratedRows(to: definition, rowsOverride: rows)
    }

    static func parts(_ geometry: Geometry?) -> [[[Double]]] {
        switch geometry {
        case .polygon(let rings, _)?: return rings
        case .polyline(let paths, _)?: return paths
        default: return []
        }
    }

    static func median(_ values: [Int]) -> Int { values.sorted()[values.count / 2] }

    @Test("the same seed gives the same shapes; another seed gives others")
    func deterministic() throws {
        let first = try Self.parkBoundaries()
        let again = try Self.parkBoundaries()
        #expect(first.layers.map(\.seedRows) == again.layers.map(\.seedRows))
        var reseeded = try #require(ServiceDefinition.builtIn(named: "parkboundaries"))
        reseeded.layers[0].generator?.seed += 1
        let other = RowGenerator.addingGeneratedRows(to: reseeded, rowsOverride: Self.rows)
        #expect(other.layers[0].seedRows.map(\.geometry) != first.layers[0].seedRows.map(\.geometry))
        #expect(other.layers[1].seedRows.map(\.geometry) == first.layers[1].seedRows.map(\.geometry))
    }

    @Test("every vertex lies inside the layer's extent, rings are closed, paths never repeat a vertex in a row")
    func insideAndClosed() throws {
        let definition = try Self.parkBoundaries()
        for layer in definition.layers {
            let extent = try #require(layer.info.extent)
            let generated = layer.seedRows.dropFirst()  // the first row is the file's own
            #expect(generated.count == Self.rows)
            for (number, row) in generated.enumerated() {
                let parts = Self.parts(row.geometry)
                #expect(!parts.isEmpty, "layer \(layer.info.id) row \(number)")
                for part in parts {
                    let outside = part.filter { !(extent.xmin...extent.xmax).contains($0[0]) || !(extent.ymin...extent.ymax).contains($0[1]) }
                    #expect(outside.isEmpty, "layer \(layer.info.id) row \(number): \(outside.prefix(3))")
                    let repeated = zip(part, part.dropFirst()).filter { $0 == $1 }
                    #expect(repeated.isEmpty, "layer \(layer.info.id) row \(number) repeats \(repeated.prefix(1))")
                    if layer.info.geometryType == .polygon {
                        #expect(part.count >= 9, "row \(number): \(part.count) vertices")
                        #expect(part.first == part.last, "row \(number): a ring is not closed")
                    } else {
                        #expect(part.count >= 2)
                    }
                }
            }
        }
    }

    @Test("polygon vertex counts: median 100…200, some over 1,000, none over 6,000 per ring; a quarter with holes or parts")
    func polygonVertexCounts() throws {
        let rows = try Self.parkBoundaries().layers[0].seedRows.dropFirst()
        let counts = rows.map { Self.parts($0.geometry).reduce(0) { $0 + $1.count } }
        let median = Self.median(counts)
        #expect((100...200).contains(median), "median \(median)")
        #expect(counts.filter { $0 > 1_000 }.count >= 2, "largest \(counts.max() ?? 0)")
        #expect(counts.allSatisfy { $0 >= 13 })
        let rings = rows.flatMap { Self.parts($0.geometry) }
        #expect(rings.allSatisfy { $0.count <= ShapeGenerator.maximumRingVertices + 1 })
        let several = rows.filter { Self.parts($0.geometry).count > 1 }.count
        #expect((Self.rows / 5...Self.rows / 2).contains(several), "\(several) of \(Self.rows) have more than one ring")
    }

    @Test("polygon sizes span three orders of magnitude, so map tiles at every zoom level hold different counts")
    func polygonSizes() throws {
        let rows = try Self.parkBoundaries().layers[0].seedRows.dropFirst()
        let widths = rows.map { row -> Double in
            let xs = Self.parts(row.geometry).flatMap { $0.map { $0[0] } }
            return (xs.max() ?? 0) - (xs.min() ?? 0)
        }
        #expect(widths.filter { $0 < 0.02 }.count >= Self.rows / 10, "few under 2 km")
        #expect(widths.filter { $0 > 0.3 }.count >= Self.rows / 10, "few over 30 km")
        #expect(widths.allSatisfy { $0 < 5 })
    }

    @Test("polyline vertex counts: median 30…120 per path, none over 1,000; some with two or three paths")
    func polylineVertexCounts() throws {
        let rows = try Self.parkBoundaries().layers[1].seedRows.dropFirst()
        let paths = rows.flatMap { Self.parts($0.geometry) }
        let median = Self.median(paths.map(\.count))
        #expect((30...120).contains(median), "median \(median)")
        #expect(paths.allSatisfy { $0.count <= ShapeGenerator.maximumPathVertices })
        #expect(paths.contains { $0.count >= 200 })
        let multipart = rows.filter { Self.parts($0.geometry).count > 1 }.count
        #expect((Self.rows / 20...Self.rows / 4).contains(multipart), "\(multipart) multipart")
    }

    @Test("a Web Mercator extent is unprojected: generated shapes are in WGS 84 inside it")
    func webMercatorExtent() throws {
        var definition = try #require(ServiceDefinition.builtIn(named: "parkboundaries"))
        // -105…-104 longitude, 40…41 latitude in Web Mercator metres.
        definition.layers[0].info.extent = Extent(
            xmin: -11_688_546.533, ymin: 4_865_942.280, xmax: -11_577_227.048, ymax: 5_012_341.663, spatialReference: .webMercator)
        let rows = RowGenerator.addingGeneratedRows(to: definition, rowsOverride: 50).layers[0].seedRows.dropFirst()
        let vertices = rows.flatMap { Self.parts($0.geometry).flatMap { $0 } }
        #expect(vertices.allSatisfy { (-105.0001...(-103.9999)).contains($0[0]) && (39.9999...41.0001).contains($0[1]) })
    }
}
