import BatchApply
import FeatureModel
import Foundation

/// Small helpers for the input readers' tests.
enum InputTestSupport {
    /// Options with a tiny chunk size, so documents cross chunk boundaries many times.
    static func options(chunkSize: Int = 7, kindField: String? = nil, csv: CSVOptions = CSVOptions()) -> InputOptions {
        var options = InputOptions(kindField: kindField, csv: csv)
        options.chunkSize = chunkSize
        return options
    }

    /// A fresh path in a temporary folder, with the given extension; the caller removes it.
    static func temporaryPath(_ fileExtension: String) -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-input-tests", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(UUID().uuidString + "." + fileExtension).path
    }

    /// Writes `text` to a fresh temporary file and returns its path.
    static func write(_ text: String, extension fileExtension: String) throws -> String {
        let path = temporaryPath(fileExtension)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The rings of a polygon geometry.
    static func rings(_ geometry: Geometry?) -> [[[Double]]]? {
        if case .polygon(let rings, _)? = geometry { return rings }
        return nil
    }

    /// The spatial reference of a geometry.
    static func spatialReference(_ geometry: Geometry?) -> SpatialReference? {
        switch geometry {
        case .point(_, _, _, let sr)?, .multipoint(_, let sr)?, .polyline(_, let sr)?, .polygon(_, let sr)?, .envelope(_, _, _, _, let sr)?: sr
        case nil: nil
        }
    }
}

extension Result {
    var success: Success? {
        if case .success(let value) = self { return value }
        return nil
    }

    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
