/// Opens an input file of edits with the reader its format needs.
package enum InputFile {
    /// A reader of the file at `path`, in `format` or the format its extension (and, for `.json`, its first
    /// bytes) shows.
    ///
    /// ```swift
    /// var options = InputOptions(kindField: "_edit")
    /// options.csv = CSVOptions(mapping: try CSVOptions.parseMapping("name=NAME"), x: "lon", y: "lat")
    /// var reader = try InputFile.open(path: "parks.csv", options: options)
    /// while let record = reader.next() { … }
    /// ```
    /// - Parameters:
    ///   - path: the file.
    ///   - format: the format; nil (the default) detects it with ``InputFormat/detect(path:)``.
    ///   - options: kind field and per-format options.
    /// - Returns: the reader; blocks on opening the file (and, for JSON documents, on a first pass over it).
    /// - Throws: ``InputSetupError`` when the format cannot be told, the file cannot be opened, or the options do
    ///   not fit it (a GeoPackage table that is not there).
    package static func open(path: String, format: InputFormat? = nil, options: InputOptions = InputOptions()) throws -> any EditReader {
        switch try format ?? InputFormat.detect(path: path) {
        case .geojson: return try GeoJSONReader(path: path, options: options)
        case .geojsonSeq: return try GeoJSONSeqReader(path: path, options: options)
        case .esriJSON: return try EsriJSONReader(path: path, options: options)
        case .csv: return try CSVReader(path: path, options: options)
        case .geoPackage: return try GeoPackageReader(path: path, options: options)
        }
    }
}
