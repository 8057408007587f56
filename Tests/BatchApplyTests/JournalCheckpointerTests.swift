import BatchApply
import FeatureModel
import FeatureloadTestSupport
import Foundation
import Testing

/// The journal copies its write-ahead log into its file as the log grows, not only when it is closed.
@Suite struct JournalCheckpointerTests {
    static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? 0
    }

    @Test(
        "a few MB of plan reach the journal's file while it is open, far below SQLite's own 16 MB mark; closing leaves no log",
        .timeLimit(.minutes(1)))
    func copiesWhileOpen() async throws {
        let directory = try TemporaryDirectory()
        var journal: ApplyJournal? = try JournalAppendTests.journal(directory)
        let path = try #require(journal?.path)
        let created = Self.size(path)
        let text = String(repeating: "x", count: 400)
        for page in 0..<10 {
            let edits = (0..<1_000).map { offset -> (edit: PlannedEdit, batch: Int?) in
                let index = page * 1_000 + offset
                let edit = PlannedEdit(
                    position: InputPosition(index: index, line: index + 1), kind: .add, layer: 0, globalId: "{\(index)}", objectId: nil,
                    payload: "{\"attributes\":{\"name\":\"\(text)\"}}", source: text)
                return (edit, index / 100)
            }
            try journal?.append(edits, batches: (page * 10..<page * 10 + 10).map { ($0, 0, true) })
        }
        // About 8 MB of texts went to the log.
        let deadline = Date(timeIntervalSinceNow: 10)
        while Self.size(path) < created + 4_000_000 && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(Self.size(path) > created + 4_000_000, "the file grew from \(created) to \(Self.size(path)) bytes")
        #expect(try journal?.counts().planned == 10_000)
        journal = nil
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "closed: the log is copied and removed")
        #expect(try ApplyJournal.open(at: path).counts().planned == 10_000)
    }
}
