import FeatureModel
import Foundation

/// The formats `featureload apply` reads edits from.
package enum InputFormat: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// One GeoJSON document: a FeatureCollection (or a single Feature).
    case geojson
    /// Newline-delimited GeoJSON features (GeoJSONSeq, NDJSON, JSON Lines); Esri JSON features per line are read too.
    case geojsonSeq
    /// One Esri JSON document: a feature set, an applyEdits body (adds/updates/deletes), or service-level edits.
    case esriJSON
    /// Comma-separated values with a header row (RFC 4180).
    case csv
    /// An OGC GeoPackage (SQLite) file.
    case geoPackage

    package var description: String { rawValue }

    /// The format of the file at `path`, by its extension; `.json` files are told apart by their first bytes.
    ///
    /// Blocks on reading up to 64 KiB of a `.json` file.
    /// - Throws: ``InputSetupError`` for an unknown extension, an unreadable file, or a `.json` file that looks
    ///   like neither GeoJSON nor Esri JSON.
    package static func detect(path: String) throws -> InputFormat {
        let fileExtension = URL(fileURLWithPath: path).pathExtension.lowercased()
        switch fileExtension {
        case "geojson": return .geojson
        case "geojsonl", "geojsons", "ndjson", "jsonl": return .geojsonSeq
        case "csv": return .csv
        case "gpkg": return .geoPackage
        case "json":
            let head: Data
            do {
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
                defer { try? handle.close() }
                head = try handle.read(upToCount: 65_536) ?? Data()
            } catch {
                throw InputSetupError("cannot read \(path): \(error.localizedDescription)")
            }
            if let format = sniff([UInt8](head)) { return format }
            throw InputSetupError(
                "\(path) looks like neither GeoJSON (\"type\": \"FeatureCollection\" or \"Feature\") nor Esri JSON "
                    + "(\"features\" with \"attributes\", \"adds\"/\"updates\"/\"deletes\", or [{\"id\", \"adds\"…}])")
        default:
            throw InputSetupError(
                "cannot tell the format of \(path) from its extension '\(fileExtension)'; "
                    + "use .geojson, .json, .geojsonl, .ndjson, .jsonl, .csv or .gpkg, or name the format")
        }
    }

    /// The JSON format the first bytes of a document suggest, or nil when they suggest none.
    ///
    /// Looks only at member names and the `type` value, so a document cut off at any point can be sniffed.
    static func sniff(_ head: [UInt8]) -> InputFormat? {
        let text = String(decoding: head, as: UTF8.self)
        // Features one per line in a file named .json: the first line is a whole object and another follows.
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if lines.count > 1, lines[1].hasPrefix("{"), case .object(let first)? = try? JSONReader.parse(lines[0]),
            first["type"]?.stringValue == "Feature" || first["attributes"] != nil
        {
            return .geojsonSeq
        }
        let compact = String(text.unicodeScalars.filter { !$0.properties.isWhitespace }.map(Character.init))
        func first(_ markers: [String]) -> String.Index? {
            markers.compactMap { compact.range(of: $0)?.lowerBound }.min()
        }
        let geoJSON = first(["\"type\":\"FeatureCollection\"", "\"type\":\"Feature\""])
        let esri = first(["\"attributes\":", "\"adds\":", "\"updates\":", "\"deletes\":"])
        switch (geoJSON, esri) {
        case (let g?, let e?): return g < e ? .geojson : .esriJSON
        case (.some, nil): return .geojson
        case (nil, .some): return .esriJSON
        case (nil, nil): return nil
        }
    }
}

/// Why an input cannot be read at all (file, format or options), before any record is read.
package struct InputSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong and what to do, e.g. "no column 'lon' in the header; columns are a, b".
    package var reason: String

    /// An error with the given reason.
    package init(_ reason: String) { self.reason = reason }

    package var description: String { reason }
}
