import Foundation

/// A 512-pixel Web Mercator tile: the box a web map asks one query for, at `level` (the world is 2^level tiles
/// across), with the quantization tolerance a map uses at that scale, one pixel.
package struct Tile: Codable, Hashable, Sendable {
    package var level: Int
    package var column: Int
    package var row: Int

    package init(level: Int, column: Int, row: Int) {
        self.level = level
        self.column = column
        self.row = row
    }

    /// Half the width of the Web Mercator world, metres.
    package static let worldHalf = 20_037_508.342_789_244
    package static let pixels = 512.0

    package var size: Double { 2 * Self.worldHalf / pow(2, Double(level)) }
    /// The tile's box in Web Mercator and its pixel size (the tolerance of its `quantizationParameters`).
    package var box: TileBox {
        let xmin = -Self.worldHalf + Double(column) * size
        let ymax = Self.worldHalf - Double(row) * size
        return TileBox(xmin: xmin, ymin: ymax - size, xmax: xmin + size, ymax: ymax, resolution: size / Self.pixels)
    }

    /// At most `limit` tiles of `level` that meet the WGS 84 box, spread evenly over it (every k-th in row order),
    /// the same every run.
    package static func covering(xmin: Double, ymin: Double, xmax: Double, ymax: Double, level: Int, limit: Int) -> [Tile] {
        let (left, bottom) = WebMercator.project(xmin, ymin)
        let (right, top) = WebMercator.project(xmax, ymax)
        let size = 2 * worldHalf / pow(2, Double(level))
        let columns = Int(((left + worldHalf) / size).rounded(.down))...Int(((right + worldHalf) / size).rounded(.down))
        let rows = Int(((worldHalf - top) / size).rounded(.down))...Int(((worldHalf - bottom) / size).rounded(.down))
        var all: [Tile] = []
        for row in rows { for column in columns { all.append(Tile(level: level, column: column, row: row)) } }
        guard all.count > limit else { return all }
        let step = Double(all.count) / Double(limit)
        return (0..<limit).map { all[Int(Double($0) * step)] }
    }

    /// The query a web map sends for this tile (ArcGIS Maps SDK for JavaScript 4.x, `FeatureLayer`): the tile's
    /// envelope in Web Mercator, `resultType=tile`, view-mode quantization at one pixel with the tile as its extent,
    /// ordered by object ID, only the object ID as attribute, in `format` (json or pbf).
    package func query(layerURL: String, objectIdField: String, format: String) -> String {
        let (xmin, ymin, xmax, ymax, resolution) = (box.xmin, box.ymin, box.xmax, box.ymax, box.resolution)
        let box = String(format: "\"xmin\":%.6f,\"ymin\":%.6f,\"xmax\":%.6f,\"ymax\":%.6f", xmin, ymin, xmax, ymax)
        let reference = "\"spatialReference\":{\"wkid\":102100,\"latestWkid\":3857}"
        let quantization = String(
            format: "{\"mode\":\"view\",\"originPosition\":\"upperLeft\",\"tolerance\":%.10g,\"extent\":{%@,%@}}", resolution, box, reference)
        let parameters: [(String, String)] = [
            ("f", format), ("where", "1=1"), ("geometry", "{\(box),\(reference)}"), ("geometryType", "esriGeometryEnvelope"),
            ("inSR", "102100"), ("spatialRel", "esriSpatialRelIntersects"), ("outFields", objectIdField), ("outSR", "102100"),
            ("returnGeometry", "true"), ("orderByFields", objectIdField), ("resultType", "tile"), ("cacheHint", "true"),
            ("quantizationParameters", quantization),
        ]
        return layerURL + "/query?" + parameters.map { "\($0)=\(Self.escape($1))" }.joined(separator: "&")
    }

    private static func escape(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}

/// A tile's box in Web Mercator metres and its pixel size.
package struct TileBox: Hashable, Sendable {
    package var xmin: Double
    package var ymin: Double
    package var xmax: Double
    package var ymax: Double
    /// Metres per pixel: the tolerance of the tile's `quantizationParameters`.
    package var resolution: Double

    package init(xmin: Double, ymin: Double, xmax: Double, ymax: Double, resolution: Double) {
        self.xmin = xmin
        self.ymin = ymin
        self.xmax = xmax
        self.ymax = ymax
        self.resolution = resolution
    }

    /// The box in WGS 84 (exact: Web Mercator maps each axis on its own, monotonically).
    package var geographic: (xmin: Double, ymin: Double, xmax: Double, ymax: Double) {
        let (west, south) = WebMercator.unproject(xmin, ymin)
        let (east, north) = WebMercator.unproject(xmax, ymax)
        return (west, south, east, north)
    }
}

/// The spherical Web Mercator formulas (EPSG:3857) ArcGIS uses for 102100.
package enum WebMercator {
    package static let radius = 6_378_137.0

    package static func project(_ longitude: Double, _ latitude: Double) -> (Double, Double) {
        (radius * longitude * .pi / 180, radius * log(tan(.pi / 4 + latitude * .pi / 360)))
    }

    package static func unproject(_ x: Double, _ y: Double) -> (Double, Double) {
        (x / radius * 180 / .pi, (2 * atan(exp(y / radius)) - .pi / 2) * 180 / .pi)
    }
}

/// A layer a tile benchmark queries: its service, id, geometry type (the ArcGIS name) and object ID field.
package struct TileLayer: Codable, Hashable, Sendable {
    package var service: String
    package var id: Int
    package var name: String
    package var geometryType: String
    package var objectIdField: String

    package init(service: String, id: Int, name: String, geometryType: String, objectIdField: String) {
        self.service = service
        self.id = id
        self.name = name
        self.geometryType = geometryType
        self.objectIdField = objectIdField
    }
}
