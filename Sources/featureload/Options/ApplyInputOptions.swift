import ArgumentParser
import BatchApply
import FeatureServiceClient
import Foundation
import LoadRunner
import Logging

/// How `apply` reads its input: the format and each format's options.
struct ApplyInputOptions: ParsableArguments {
    @Option(
        name: .customLong("input-format"),
        help: ArgumentHelp("The input's format when its extension does not say: geojson, geojsonSeq, esriJSON, csv, geoPackage.", valueName: "format")
    )
    var formatName: String?

    @Option(
        name: .long,
        help: ArgumentHelp("A property or column whose value (add, update, delete) gives each record's kind; default: all adds.", valueName: "name"))
    var kindField: String?

    @Option(name: .long, help: ArgumentHelp("CSV: rename columns to fields, e.g. name=NAME,st=STATE.", valueName: "column=field,…"))
    var map: String?

    @Option(name: .long, help: ArgumentHelp("CSV: the column of x (longitude).", valueName: "column"))
    var x: String?

    @Option(name: .long, help: ArgumentHelp("CSV: the column of y (latitude).", valueName: "column"))
    var y: String?

    @Option(name: .long, help: ArgumentHelp("CSV: a column of WKT geometry.", valueName: "column"))
    var wkt: String?

    @Option(name: .long, help: ArgumentHelp("CSV: the spatial reference of --x/--y or --wkt (default 4326).", valueName: "wkid"))
    var wkid: Int?

    @Option(name: .long, help: ArgumentHelp("GeoPackage: the table to read (default: its only feature table).", valueName: "name"))
    var table: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The most bytes one record (feature, line, row) may have; a larger one is rejected with its position, never held in memory (default 64M).",
            valueName: "size"),
        transform: ApplyInputOptions.recordSize)
    var maxRecordSize: Int?

    /// `--max-record-size`'s value: bytes, or with K, M or G.
    static func recordSize(_ text: String) throws -> Int {
        guard let size = ServeCommand.byteCount(text.trimmingCharacters(in: .whitespaces)), size >= 1 else {
            throw ValidationError("--max-record-size '\(text)' is not a size above 0; write e.g. 64M, 512K or 1G")
        }
        return size
    }

    /// The options given, by name (a resumed run reads its input as the journal recorded).
    var given: [String] {
        [
            ("--input-format", formatName != nil), ("--kind-field", kindField != nil), ("--map", map != nil), ("--x", x != nil), ("--y", y != nil),
            ("--wkt", wkt != nil), ("--wkid", wkid != nil), ("--table", table != nil), ("--max-record-size", maxRecordSize != nil),
        ].filter(\.1).map(\.0)
    }

    var format: InputFormat? {
        get throws {
            guard let formatName else { return nil }
            guard let format = InputFormat.allCases.first(where: { $0.rawValue.lowercased() == formatName.lowercased() }) else {
                throw ValidationError(
                    "--input-format must be one of \(InputFormat.allCases.map(\.rawValue).joined(separator: ", ")); got '\(formatName)'")
            }
            return format
        }
    }

    func readOptions() throws -> InputOptions {
        var csv = CSVOptions(x: x, y: y, wkt: wkt, wkid: wkid ?? 4326)
        if let map { csv.mapping = try CSVOptions.parseMapping(map) }
        return InputOptions(
            kindField: kindField, csv: csv, geoPackage: GeoPackageOptions(table: table),
            maxRecordSize: maxRecordSize ?? InputOptions.defaultMaxRecordSize)
    }
}
