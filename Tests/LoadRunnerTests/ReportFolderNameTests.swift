import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// A run name too long for a folder name (issue 32, item 9): the folder's name is shortened, the report keeps it.
@Suite struct ReportFolderNameTests {
    @Test("a 5,000-character run name gets a report folder with a shortened name; the report keeps the whole name", .timeLimit(.minutes(1)))
    func longName() async throws {
        var report = try await ScenarioRunnerTests.run(ScenarioRunnerTests.plan(), service: ScenarioRunnerTests.FakeService())
        let directory = try TemporaryDirectory()
        for letter in ["a", "é"] {
            report.plan.name = String(repeating: letter, count: 5000)
            let folder = try ReportWriter.write(report, under: directory.path, formats: [.json, .md])
            let name = URL(fileURLWithPath: folder).lastPathComponent
            #expect(name.utf8.count <= 160 && name.hasPrefix(letter), "\(name)")
            let saved = try RunReport.decode(Data(contentsOf: URL(fileURLWithPath: folder + "/report.json")))
            #expect(saved.plan.name == report.plan.name)
        }
        // Two long names alike in their first part still get folders of their own.
        report.plan.name = String(repeating: "a", count: 4999) + "b"
        let other = try ReportWriter.write(report, under: directory.path, formats: [.json])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 3)
        #expect(!other.hasSuffix("-2"), "the hash of the whole name tells them apart: \(other)")
    }
}
