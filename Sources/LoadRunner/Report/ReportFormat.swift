public import Foundation

/// The formats a run's report is written in, each rendered from the saved ``RunReport`` alone.
public enum ReportFormat: String, Sendable, CaseIterable {
    /// `report.json`: the saved run itself (schema `featureload.run-report`, version 2), sorted keys, so rendering the
    /// same run twice gives the same bytes.
    case json
    /// `report.md`: the verdict and tables, for people and pull-request comments.
    case md
    /// `report.junit.xml`: one test suite per scenario and one test case per threshold, gate and verification, for
    /// CI test views.
    case junit

    /// The file name inside a run's folder.
    public var fileName: String {
        switch self {
        case .json: return "report.json"
        case .md: return "report.md"
        case .junit: return "report.junit.xml"
        }
    }

    /// The report in this format.
    /// - Throws: `EncodingError` (JSON only).
    public func render(_ report: RunReport) throws -> Data {
        switch self {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return try encoder.encode(report)
        case .md: return Data(ReportRenderer.markdown(report).utf8)
        case .junit: return Data(JUnitRenderer.render(report).utf8)
        }
    }
}
