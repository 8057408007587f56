import BatchApply
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import GRDB
import Testing

/// A journal whose edits or batches have a status this featureload does not know is refused, not resumed as if
/// they were settled.
@Suite struct JournalIntegrityTests {
    /// A journal of 30 parks in batches of 10, with batch 0 unpacked into a row per edit (one edit of it failed).
    static func journal(in directory: TemporaryDirectory) throws -> String {
        let path = directory.path + "/integrity.journal"
        let header = JournalHeader(
            input: "parks.geojson", inputSize: 0, target: "local", layer: 0, objectIdField: "OBJECTID", globalIdField: "GlobalID",
            settings: ApplySettings(batchSize: 10, concurrency: 2),
            reading: JournalHeader.Reading(format: .geojson, options: InputOptions(), skipInvalid: false))
        let journal = try ApplyJournal.create(at: path, header: header)
        var source = ArrayEditReader(BatchApplierIntegrationTests.parks(30))
        _ = try ApplyPlanner(layers: [0: PointAddsTests.layer(requiredName: false)], defaultLayer: 0, batchSize: 10).plan(&source, into: journal)
        try journal.finishPlan()
        try journal.record(batch: 0, [EditRecord(index: 0, status: .failed, reason: "HTTP 503")], state: .planned)
        return path
    }

    @Test(
        "an edit status or batch state the journal's reader does not know is refused on open, naming the record or batch and what to do",
        arguments: [
            ("UPDATE edit SET status = 'sent-ok' WHERE position = 3", "the edit of record 4 has the status 'sent-ok'"),
            ("UPDATE batch SET state = 'finished' WHERE id = 2", "batch 2 has the state 'finished'"),
        ])
    func unknownStatusRefused(change: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let path = try Self.journal(in: directory)
        #expect(try ApplyJournal.open(at: path).counts().planned == 30, "a journal with known statuses opens")
        try DatabaseQueue(path: path).write { db in try db.execute(sql: change) }
        do {
            _ = try ApplyJournal.open(at: path)
            Issue.record("a journal with an unknown status was opened")
        } catch let error as ApplyError {
            #expect("\(error)".contains(message) && "\(error)".contains("not resumed") && "\(error)".contains("--journal"), "\(error)")
        }
    }
}
