import Foundation
import Testing

@testable import LoadRunner

/// Names and messages from a run cannot break report.md's or compare's tables, nor become HTML.
@Suite struct MarkdownEscapeTests {
    @Test("text: pipes escaped, HTML as entities, every kind of line break as <br>")
    func text() {
        #expect(MarkdownText.text("a|b") == "a\\|b")
        #expect(MarkdownText.text("<script>x&y</script>") == "&lt;script&gt;x&amp;y&lt;/script&gt;")
        #expect(MarkdownText.text("one\ntwo\r\nthree\rfour") == "one<br>two<br>three<br>four")
        #expect(MarkdownText.text("plain name") == "plain name")
    }

    @Test("code: fenced past its own backticks, pipes escaped, line breaks as spaces")
    func code() {
        #expect(MarkdownText.code("http_req_duration{scenario:a}") == "`http_req_duration{scenario:a}`")
        #expect(MarkdownText.code("a`b") == "``a`b``")
        #expect(MarkdownText.code("`x`") == "`` `x` ``")
        #expect(MarkdownText.code("a|b\nc") == "`a\\|b c`")
    }

    /// The cells of a Markdown table row: split on pipes that are not escaped.
    static func cells(_ row: Substring) -> Int {
        var count = 0
        var escaped = false
        for character in row {
            if character == "|" && !escaped { count += 1 }
            escaped = character == "\\" && !escaped
        }
        return count
    }

    @Test("a scenario named with a pipe, HTML and a line break keeps every table row whole", .timeLimit(.minutes(1)))
    func hostileNames() async throws {
        let name = #""a|b <b>bold</b>\nnext""#
        let report = try await RunnerIntegrationTests.run(
            RunnerIntegrationTests.plan(
                "  \(name):\n    executor: shared-iterations\n    vus: 1\n    iterations: 2\n    exec: query\n    returnCountOnly: true\n"))
        #expect(report.scenarios.first?.name == "a|b <b>bold</b>\nnext")
        let markdown = ReportRenderer.markdown(report)
        #expect(!markdown.contains("<b>"), "\(markdown)")
        #expect(markdown.contains("a\\|b &lt;b&gt;bold&lt;/b&gt;<br>next"))
        // Every row of a table has as many cells as its header.
        var header: Int?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("|") else {
                header = nil
                continue
            }
            if let header { #expect(Self.cells(line) == header, "\(line)") } else { header = Self.cells(line) }
        }
        let comparison = try RunComparison(baseline: report, candidate: report, baselineName: "a|b.json", candidateName: "b.json", tolerance: 0.1)
        for line in comparison.markdown.split(separator: "\n") where line.hasPrefix("| ") && line.contains("bold") {
            #expect(line.contains("a\\|b &lt;b&gt;bold&lt;/b&gt;<br>next"), "\(line)")
        }
        #expect(comparison.markdown.contains("`a\\|b.json`"))
    }
}
