import FeatureModel
import FeatureloadBenchmarkSupport
import Foundation
import GEOSSupport
import GRDBSQLite

/// The floor a tile query is measured against: the same answer made with nothing but SQLite's C API, GEOS and
/// arithmetic, in-process, on one thread. For each tile it finds the candidate rows by the layer's index (the point
/// layer's (x, y) B-tree, the other layers' R*Tree), keeps those whose shape meets the tile (GEOS' prepared
/// intersects), projects to Web Mercator, simplifies lines and polygons to one pixel (GEOS' topology-preserving
/// simplify), quantizes to the pixel grid with deltas as ArcGIS does, and writes the JSON answer. It parses the stored
/// JSON with a scanner that reads nothing but the coordinate arrays, and writes JSON by appending bytes: the least
/// work that gives the answer.
///
/// Isolation: one instance per thread; its SQLite connection and GEOS context are used by nothing else.
final class TileFloor {
    struct Answer {
        var bytes: Int
        var features: Int
        var vertices: Int
        var exceeded: Bool
    }

    let layer: TileLayer
    private let kind: GeometryType
    private let db: OpaquePointer
    private let statement: OpaquePointer
    private let context: GEOSContext
    /// `tileMaxRecordCount`: the most features a tile answer holds.
    let limit: Int
    /// The last answer's bytes.
    private(set) var output: [UInt8] = []
    private var coordinates: [[[Double]]] = []

    init(databasePath: String, layer: TileLayer, limit: Int) throws {
        guard let kind = GeometryType(rawValue: layer.geometryType), kind != .envelope else {
            throw BenchmarkFailure("\(layer.geometryType) is not a layer geometry type")
        }
        self.layer = layer
        self.kind = kind
        self.limit = limit
        var handle: OpaquePointer?
        guard sqlite3_open_v2(databasePath, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let handle else {
            throw BenchmarkFailure("cannot open \(databasePath)")
        }
        db = handle
        let table = "\"layer_\(layer.id)\""
        let id = "\"\(layer.objectIdField)\""
        // The server's own statement shapes, so SQLite plans both alike.
        let sql =
            kind == .point
            ? "SELECT \(id), \"__shape_x\", \"__shape_y\" FROM \(table) WHERE (\"__shape_x\" BETWEEN ?1 AND ?2 AND \"__shape_y\" BETWEEN ?3 AND ?4) ORDER BY \(id) LIMIT ?5"
            : "SELECT \(id), \"__shape\" FROM \(table) WHERE \(id) IN (SELECT id FROM \"layer_\(layer.id)_shapes\" WHERE xmin <= ?2 AND xmax >= ?1 AND ymin <= ?4 AND ymax >= ?3) ORDER BY \(id) LIMIT ?5"
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil) == SQLITE_OK, let prepared else {
            let message = String(cString: sqlite3_errmsg(db))
            sqlite3_close_v2(db)
            throw BenchmarkFailure("cannot prepare \(sql): \(message)")
        }
        statement = prepared
        context = try GEOSContext()
        output.reserveCapacity(1 << 20)
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close_v2(db)
    }

    /// The JSON answer for `tile` (in ``output`` until the next call), with its size, features and vertices.
    func answer(_ tile: TileBox) throws -> Answer {
        let box = tile.geographic
        sqlite3_reset(statement)
        sqlite3_bind_double(statement, 1, box.xmin)
        sqlite3_bind_double(statement, 2, box.xmax)
        sqlite3_bind_double(statement, 3, box.ymin)
        sqlite3_bind_double(statement, 4, box.ymax)
        sqlite3_bind_int64(statement, 5, Int64(limit + 1))
        let quantizer = Quantizer(tile: tile)
        let filter = try context.geometry(.envelope(xmin: tile.xmin, ymin: tile.ymin, xmax: tile.xmax, ymax: tile.ymax)).prepared()
        output.removeAll(keepingCapacity: true)
        header(tile)
        var features = 0
        var vertices = 0
        var exceeded = false
        while sqlite3_step(statement) == SQLITE_ROW {
            if features == limit {
                exceeded = true
                break
            }
            let objectId = sqlite3_column_int64(statement, 0)
            if kind == .point {
                let (x, y) = WebMercator.project(sqlite3_column_double(statement, 1), sqlite3_column_double(statement, 2))
                let (i, j) = quantizer.cell(x, y)
                feature(objectId, first: features == 0)
                append("{\"x\":")
                append(i)
                append(",\"y\":")
                append(j)
                append("}}")
                features += 1
                vertices += 1
                continue
            }
            guard let text = sqlite3_column_text(statement, 1) else { continue }
            Self.scan(text, into: &coordinates)
            let shape: GEOSGeometry
            switch kind {
            case .polygon: shape = try context.geometry(.polygon(rings: coordinates))
            case .polyline: shape = try context.geometry(.polyline(paths: coordinates))
            default: shape = try context.geometry(.multipoint(points: coordinates.first ?? []))
            }
            guard filter.intersects(shape) else { continue }
            let parts: [[[Double]]]
            switch try (kind == .multipoint ? shape : shape.simplified(tolerance: tile.resolution)).arcGIS() {
            case .polygon(let rings, _): parts = rings
            case .polyline(let paths, _): parts = paths
            case .multipoint(let points, _): parts = [points]
            default: parts = []
            }
            feature(objectId, first: features == 0)
            append(kind == .polygon ? "{\"rings\":[" : kind == .polyline ? "{\"paths\":[" : "{\"points\":")
            for (index, part) in parts.enumerated() {
                if kind != .multipoint && index > 0 { append(",") }
                vertices += write(part, quantizer: quantizer, minimum: kind == .multipoint ? 1 : 2)
            }
            append(kind == .multipoint ? "}}" : "]}}")
            features += 1
        }
        append("],\"exceededTransferLimit\":")
        append(exceeded ? "true}" : "false}")
        return Answer(bytes: output.count, features: features, vertices: vertices, exceeded: exceeded)
    }

    private func header(_ tile: TileBox) {
        append("{\"objectIdFieldName\":\"\(layer.objectIdField)\",\"geometryType\":\"\(layer.geometryType)\",")
        append("\"spatialReference\":{\"wkid\":102100,\"latestWkid\":3857},\"transform\":{\"originPosition\":\"upperLeft\",")
        append("\"scale\":[\(tile.resolution),\(tile.resolution),0,0],\"translate\":[\(tile.xmin),\(tile.ymax),0,0]},")
        append("\"fields\":[{\"name\":\"\(layer.objectIdField)\",\"type\":\"esriFieldTypeOID\",\"alias\":\"\(layer.objectIdField)\"}],")
        append("\"features\":[")
    }

    private func feature(_ objectId: Int64, first: Bool) {
        append(first ? "{\"attributes\":{\"" : ",{\"attributes\":{\"")
        append(layer.objectIdField)
        append("\":")
        append(objectId)
        append("},\"geometry\":")
    }

    /// One part on the grid: the first cell, then differences, a vertex on the previous one's cell dropped, padded
    /// with `[0,0]` to `minimum` vertices. Returns the vertices written.
    private func write(_ part: [[Double]], quantizer: Quantizer, minimum: Int) -> Int {
        append("[")
        var previous: (Int64, Int64)?
        var written = 0
        for vertex in part {
            let (i, j) = quantizer.cell(vertex[0], vertex[1])
            if let (pi, pj) = previous {
                if i == pi && j == pj { continue }
                append(",[")
                append(i - pi)
                append(",")
                append(j - pj)
            } else {
                append("[")
                append(i)
                append(",")
                append(j)
            }
            append("]")
            previous = (i, j)
            written += 1
        }
        while written > 0 && written < minimum {
            append(",[0,0]")
            written += 1
        }
        append("]")
        return written
    }

    private func append(_ text: String) {
        var text = text
        text.withUTF8 { output.append(contentsOf: $0) }
    }

    private func append(_ value: Int64) {
        var value = value
        if value < 0 {
            output.append(UInt8(ascii: "-"))
            value = -value
        }
        var digits: (UInt64, Int) = (0, 0)
        var remaining = UInt64(value)
        repeat {
            digits.0 = digits.0 * 10 + remaining % 10
            digits.1 += 1
            remaining /= 10
        } while remaining > 0
        for _ in 0..<digits.1 {
            output.append(UInt8(ascii: "0") + UInt8(digits.0 % 10))
            digits.0 /= 10
        }
    }

    /// The coordinate arrays of a stored ArcGIS JSON geometry, projected to Web Mercator: the parts of its first
    /// array member (`rings`, `paths`; a multipoint's `points` as one part), each a list of [x, y].
    static func scan(_ text: UnsafePointer<UInt8>, into parts: inout [[[Double]]]) {
        parts.removeAll(keepingCapacity: true)
        var cursor = UnsafeMutablePointer<CChar>(mutating: UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self))
        while cursor.pointee != 0 && cursor.pointee != CChar(UInt8(ascii: "[")) { cursor += 1 }
        var depth = 0
        var part: [[Double]] = []
        var vertex: [Double] = []
        // Depth 1: the parts; 2: one part (a multipoint's points); 3: one vertex.
        let isMultipoint: Bool = {
            var probe = cursor
            while probe.pointee == CChar(UInt8(ascii: "[")) { probe += 1 }
            return probe - cursor == 2
        }()
        let vertexDepth = isMultipoint ? 2 : 3
        while cursor.pointee != 0 {
            switch UInt8(bitPattern: cursor.pointee) {
            case UInt8(ascii: "["):
                depth += 1
                cursor += 1
            case UInt8(ascii: "]"):
                if depth == vertexDepth, vertex.count >= 2 {
                    let (x, y) = WebMercator.project(vertex[0], vertex[1])
                    part.append([x, y])
                    vertex.removeAll(keepingCapacity: true)
                } else if depth == vertexDepth - 1 {
                    parts.append(part)
                    part.removeAll(keepingCapacity: true)
                }
                depth -= 1
                cursor += 1
                if depth == 0 { return }
            case UInt8(ascii: ","), UInt8(ascii: " "):
                cursor += 1
            default:
                var end: UnsafeMutablePointer<CChar>?
                let value = strtod(cursor, &end)
                guard let end, end != cursor else { return }
                if depth == vertexDepth { vertex.append(value) }
                cursor = end
            }
        }
    }
}

/// The pixel grid of a tile's `quantizationParameters` (upper-left origin, one pixel a cell).
struct Quantizer {
    let xmin: Double
    let ymax: Double
    let tolerance: Double

    init(tile: TileBox) {
        xmin = tile.xmin
        ymax = tile.ymax
        tolerance = tile.resolution
    }

    func cell(_ x: Double, _ y: Double) -> (Int64, Int64) {
        (Int64(((x - xmin) / tolerance).rounded()), Int64(((ymax - y) / tolerance).rounded()))
    }
}
