import FeatureloadBenchmarkSupport
import Foundation
import GRDB
import Hummingbird

/// `featureload-floor --data PATH`: the least a server can do for a layer-level applyEdits of adds, to measure
/// `featureload serve` against (Benchmarks/README.md, "server-floor").
///
/// Per request: the url-encoded body is collected, split into fields and percent-decoded byte by byte, `adds` is decoded with `JSONDecoder`, each
/// add gets a GlobalID and is inserted into a table shaped like the parks layer (the columns and GlobalID index of
/// `featureload serve`'s `layer_0`) through a cached statement in one write transaction of a WAL `DatabasePool`
/// opened with the pragmas `featureload serve` sets, and the ArcGIS `addResults` answer is written. Nothing else:
/// no validation against the layer's fields, no middleware, no other route.
///
/// With `--tile-layer SERVICE/ID/GEOMETRYTYPE/OBJECTIDFIELD=DATABASE` (repeatable) it also answers the tile queries
/// of the tile benchmark on `GET …/<SERVICE>/FeatureServer/<ID>/query` from `featureload serve`'s database of that
/// service: the tile's envelope is read from `geometry` and its pixel from `quantizationParameters` (nothing else of
/// the request is read: the benchmark sends only tile queries), and ``TileFloor`` answers it, on the event loop.
@main
enum FloorServer {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard let flag = arguments.firstIndex(of: "--data"), flag + 1 < arguments.count else {
            FileHandle.standardError.write(Data("usage: featureload-floor --data PATH\n".utf8))
            exit(64)
        }
        let pool = try openPool(path: arguments[flag + 1])
        let router = Router()
        let tiles = try TileFloors(arguments: arguments)
        router.get("/arcgis/rest/services/:service/FeatureServer/:layer/query") { request, context -> Response in
            let key = "\(context.parameters.get("service") ?? "")/\(context.parameters.get("layer") ?? "")"
            let query = request.uri.queryParameters
            guard let geometry = query["geometry"], let quantization = query["quantizationParameters"] else {
                return Response(status: .badRequest)
            }
            let box = try JSONDecoder().decode(TileEnvelope.self, from: Data(String(geometry).utf8))
            let pixel = try JSONDecoder().decode(TileQuantization.self, from: Data(String(quantization).utf8))
            let answer = try tiles.answer(
                key, TileBox(xmin: box.xmin, ymin: box.ymin, xmax: box.xmax, ymax: box.ymax, resolution: pixel.tolerance))
            guard let answer else { return Response(status: .notFound) }
            return Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer)))
        }
        router.post("/arcgis/rest/services/:service/FeatureServer/:layer/applyEdits") { request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 64 << 20)
            let fields = formFields(body)
            let adds = try JSONDecoder().decode(Adds.self, from: Data((fields["adds"] ?? "[]").utf8)).items
            let results = try await pool.write { db in
                let insert = try db.cachedStatement(sql: insertSQL)
                return try adds.map { add -> (Int64, String) in
                    let globalId = "{\(UUID().uuidString)}"
                    let a = add.attributes
                    try insert.execute(arguments: [
                        globalId, a?.name, a?.state, a?.category, a?.area_km2, a?.established, a?.visitors, add.geometry?.x, add.geometry?.y,
                    ])
                    return (db.lastInsertedRowID, globalId)
                }
            }
            let items = results.map { #"{"objectId":\#($0.0),"globalId":"\#($0.1)","success":true}"# }
            let answer = #"{"addResults":["# + items.joined(separator: ",") + #"],"updateResults":[],"deleteResults":[]}"#
            return Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: answer)))
        }
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let line = "featureload-floor: listening on http://127.0.0.1:\(port)/arcgis/rest/services/parks/FeatureServer\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            })
        try await app.runService()
    }

    struct TileEnvelope: Decodable {
        var xmin: Double
        var ymin: Double
        var xmax: Double
        var ymax: Double
    }

    struct TileQuantization: Decodable {
        var tolerance: Double
    }

    /// The pool as `featureload serve`'s FeatureStore opens it (GRDB's WAL `DatabasePool`, `synchronous = NORMAL`,
    /// its page cache and log sizes), with the parks layer's table. FeatureStore's background checkpoints are a
    /// design of its own, not a setting, and are left out.
    static func openPool(path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA cache_size = -32768")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 16384")
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS layer_0 ("OBJECTID" INTEGER PRIMARY KEY AUTOINCREMENT, "GlobalID" TEXT, "name" TEXT,
                    "state" TEXT, "category" INTEGER, "area_km2" REAL, "established" INTEGER, "visitors" INTEGER, "__shape_x" REAL,
                    "__shape_y" REAL);
                    CREATE UNIQUE INDEX IF NOT EXISTS "layer_0_globalid" ON layer_0("GlobalID");
                    """)
        }
        return pool
    }

    static let insertSQL = """
        INSERT INTO layer_0 ("GlobalID", "name", "state", "category", "area_km2", "established", "visitors", "__shape_x", "__shape_y")
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The fields of an `application/x-www-form-urlencoded` body, percent-decoded (`+` is a space), names lower-cased;
    /// a field that is not UTF-8 once decoded is left out.
    static func formFields(_ body: ByteBuffer) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in Array(body.readableBytesView).split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decoded(parts[0]), let value = decoded(parts.count > 1 ? parts[1] : pair[pair.endIndex...]) else { continue }
            fields[name.lowercased()] = value
        }
        return fields
    }

    /// `bytes` percent-decoded as UTF-8 text; nil when not UTF-8.
    static func decoded(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), bytes.endIndex - index >= 3,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
                continue
            }
            out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return String(validating: out, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `adds`: an array of features, or one feature.
    struct Adds: Decodable {
        var items: [Add]
        init(from decoder: any Decoder) throws {
            if let array = try? [Add](from: decoder) { items = array } else { items = [try Add(from: decoder)] }
        }
    }

    struct Add: Decodable {
        var attributes: Attributes?
        var geometry: Point?
    }

    struct Point: Decodable {
        var x: Double
        var y: Double
    }

    struct Attributes: Decodable {
        var name: String?
        var state: String?
        var category: Int64?
        var area_km2: Double?
        var established: Int64?
        var visitors: Int64?
    }
}

/// The ``TileFloor``s of each `--tile-layer`, one per request in flight (a floor's SQLite connection and GEOS context
/// serve one thread at a time).
final class TileFloors: @unchecked Sendable {
    private let layers: [String: (layer: TileLayer, path: String)]
    private let lock = NSLock()
    private var idle: [String: [TileFloor]] = [:]

    init(arguments: [String]) throws {
        var layers: [String: (TileLayer, String)] = [:]
        for (index, argument) in arguments.enumerated() where argument == "--tile-layer" && index + 1 < arguments.count {
            let value = arguments[index + 1]
            guard let equals = value.firstIndex(of: "=") else { throw BenchmarkFailure("--tile-layer \(value): no =DATABASE") }
            let parts = value[..<equals].split(separator: "/").map(String.init)
            guard parts.count == 4, let id = Int(parts[1]) else {
                throw BenchmarkFailure("--tile-layer \(value): expected SERVICE/ID/GEOMETRYTYPE/OBJECTIDFIELD=DATABASE")
            }
            let layer = TileLayer(service: parts[0], id: id, name: parts[0], geometryType: parts[2], objectIdField: parts[3])
            layers["\(parts[0])/\(id)"] = (layer, String(value[value.index(after: equals)...]))
        }
        self.layers = layers
    }

    /// The answer for `box` on layer `key` (`SERVICE/ID`); nil for a layer not given.
    func answer(_ key: String, _ box: TileBox) throws -> [UInt8]? {
        guard let (layer, path) = layers[key] else { return nil }
        let floor = try lock.withLock { idle[key]?.popLast() } ?? TileFloor(databasePath: path, layer: layer, limit: 8000)
        defer { lock.withLock { idle[key, default: []].append(floor) } }
        _ = try floor.answer(box)
        return floor.output
    }
}
