package import Foundation

/// The formats a run's report is written in, each rendered from the saved ``RunReport`` alone.
package enum ReportFormat: String, Sendable, CaseIterable {
    /// `report.json`: the saved run itself (schema `featureload.run-report`, version 2), sorted keys, so rendering the
    /// same run twice gives the same bytes.
    case json
    /// `report.md`: the verdict and tables, for people and pull-request comments.
    case md
    /// `report.junit.xml`: one test suite per scenario and one test case per threshold, gate and verification, for
    /// CI test views.
    case junit
    /// `report.html`: one self-contained page with the verdict and SVG charts over time, for people and CI artifacts.
    case html

    /// The file name inside a run's folder.
    package var fileName: String {
        switch self {
        case .json: return "report.json"
        case .md: return "report.md"
        case .junit: return "report.junit.xml"
        case .html: return "report.html"
        }
    }

    /// The report in this format.
    /// - Parameters:
    ///   - report: The run's report.
    ///   - views: `report.views`, when the caller already has them (each costs a merge and percentiles of every
    ///     scenario's histograms); nil computes them.
    /// - Throws: `EncodingError` (JSON only).
    package func render(_ report: RunReport, views: [ScenarioView]? = nil) throws -> Data {
        switch self {
        case .json: return try Self.json(report)
        case .md: return Data(ReportRenderer.markdown(report, views: views).utf8)
        case .junit: return Data(JUnitRenderer.render(report, views: views).utf8)
        case .html: return Data(HTMLRenderer.render(report, views: views).utf8)
        }
    }

    /// Pretty-printed JSON with sorted keys, except the time series: one compact line per bucket. A long run has
    /// thousands of buckets of histogram pairs; encoded whole and pretty they made the report several times larger
    /// and its writing the run's peak of memory. Here each bucket is encoded on its own and appended.
    static func json(_ report: RunReport) throws -> Data {
        let pretty = JSONEncoder()
        pretty.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard !report.timeSeries.isEmpty else { return try pretty.encode(report) }
        var shell = report
        shell.timeSeries = []
        let document = try pretty.encode(shell)
        let placeholder = Data("\n  \"timeSeries\" : [\n\n  ]".utf8)
        guard let range = document.range(of: placeholder) else { return try pretty.encode(report) }
        let compact = JSONEncoder()
        compact.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var out = Data(capacity: document.count + report.timeSeries.count * 2_048)
        out.append(document[..<range.lowerBound])
        out.append(contentsOf: Array("\n  \"timeSeries\" : [\n".utf8))
        for (index, bucket) in report.timeSeries.enumerated() {
            out.append(contentsOf: Array("    ".utf8))
            out.append(try compact.encode(bucket))
            out.append(contentsOf: Array((index == report.timeSeries.count - 1 ? "\n" : ",\n").utf8))
        }
        out.append(contentsOf: Array("  ]".utf8))
        out.append(document[range.upperBound...])
        return out
    }
}
