import BatchApply
import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import GRDB
import LocalFeatureServer
import Testing

/// A journal of version 1 (an earlier featureload), left with batches in doubt, is upgraded when opened and resumes.
@Suite struct JournalMigrationTests {
    @Test("a version-1 journal with batches in doubt is upgraded in place and resumes: every park once", .timeLimit(.minutes(2)))
    func resumesVersion1() async throws {
        try await BatchApplierIntegrationTests.server { endpoint in
            try await withCurlTransport { transport in
                let directory = try TemporaryDirectory()
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let (journal, layer) = try await BatchApplierIntegrationTests.plannedJournal(
                    BatchApplierIntegrationTests.parks(300), service: service, directory: directory, batchSize: 50)
                // Two batches sent by the earlier build (applied) and left in doubt, as a kill -9 would leave them.
                let inDoubt = try journal.startSending([0, 1])
                let sent = inDoubt.flatMap(\.edits).compactMap { edit -> Feature? in
                    guard let value = try? JSONReader.parse(edit.planned.payload) else { return nil }
                    return try? EsriJSONFeature.feature(value)
                }
                _ = try await service.layer(id: 0).applyEdits(LayerEdits(adds: sent), options: ApplyEditsOptions(rollbackOnFailure: false, useGlobalIds: true))
                // The file as version 1 wrote it.
                let path = journal.path
                let queue = try DatabaseQueue(path: path)
                try await queue.write { db in
                    try db.execute(
                        sql: """
                            ALTER TABLE batch DROP COLUMN atomic;
                            ALTER TABLE batch DROP COLUMN barrier;
                            ALTER TABLE edit DROP COLUMN grp;
                            DROP TABLE attachment;
                            ALTER TABLE problem DROP COLUMN kind;
                            ALTER TABLE problem DROP COLUMN layer;
                            UPDATE run SET version = 1, header = json_remove(header, '$.settings.related');
                            """)
                }
                try queue.close()

                let reopened = try ApplyJournal.open(at: path)
                #expect(try reopened.header().settings.related == false)
                let keys: [Int: (objectIdField: String, globalIdField: String?)] = [0: (layer.objectIdField, layer.globalIdField)]
                let summary = try await BatchApplier(journal: reopened, service: service, settings: try reopened.header().settings, keys: keys).run()
                #expect(summary.reconciledBatches == 2 && summary.reconciledApplied == 100, "the batches in doubt were found applied: \(summary)")
                let counts = try reopened.counts()
                #expect(counts.applied == 300 && counts.open == 0, "\(counts)")
                let occurrences = try await BatchApplierIntegrationTests.occurrences(journal: reopened, layer: service.layer(id: 0))
                #expect(occurrences.count == 300 && occurrences.values.allSatisfy { $0 == 1 }, "every park once")
            }
        }
    }
}
