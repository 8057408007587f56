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
                #expect(try await Self.sendLeavingInDoubt([0, 1], journal: journal, service: service) == 100)
                // The file as version 1 wrote it.
                let path = journal.path
                let queue = try DatabaseQueue(path: path)
                try await queue.write { db in
                    try Self.writeAsVersion3(db)
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

    @Test("a version-3 journal (each edit's texts in its row) with batches in doubt is upgraded in place and resumes", .timeLimit(.minutes(2)))
    func resumesVersion3() async throws {
        try await BatchApplierIntegrationTests.server { endpoint in
            try await withCurlTransport { transport in
                let directory = try TemporaryDirectory()
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let (journal, layer) = try await BatchApplierIntegrationTests.plannedJournal(
                    BatchApplierIntegrationTests.parks(300), service: service, directory: directory, batchSize: 50)
                let planned = try journal.batch(2).edits
                // A batch sent by the earlier build (applied) and left in doubt, as a kill -9 would leave it.
                #expect(try await Self.sendLeavingInDoubt([0], journal: journal, service: service) == 50)
                let path = journal.path
                let queue = try DatabaseQueue(path: path)
                try await queue.write { db in try Self.writeAsVersion3(db) }
                try queue.close()

                let reopened = try ApplyJournal.open(at: path)
                // The texts are read from the rows as version 3 wrote them.
                #expect(try reopened.batch(2).edits == planned)
                let keys: [Int: (objectIdField: String, globalIdField: String?)] = [0: (layer.objectIdField, layer.globalIdField)]
                let summary = try await BatchApplier(journal: reopened, service: service, settings: try reopened.header().settings, keys: keys).run()
                #expect(summary.reconciledBatches == 1 && summary.reconciledApplied == 50, "the batch in doubt was found applied: \(summary)")
                #expect(try reopened.counts().applied == 300)
                let occurrences = try await BatchApplierIntegrationTests.occurrences(journal: reopened, layer: service.layer(id: 0))
                #expect(occurrences.count == 300 && occurrences.values.allSatisfy { $0 == 1 }, "every park once")
            }
        }
    }

    @Test(
        "a version-4 journal (a row per edit) with batches applied and in doubt is upgraded in place, resumes, and plans again beside its rows",
        .timeLimit(.minutes(2)))
    func resumesVersion4() async throws {
        try await BatchApplierIntegrationTests.server { endpoint in
            try await withCurlTransport { transport in
                let directory = try TemporaryDirectory()
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let (journal, layer) = try await BatchApplierIntegrationTests.plannedJournal(
                    BatchApplierIntegrationTests.parks(300), service: service, directory: directory, batchSize: 50)
                let planned = try journal.batch(3).edits
                // Batch 0 applied and recorded, batch 1 applied and left in doubt, as a kill -9 would leave it.
                let keys: [Int: (objectIdField: String, globalIdField: String?)] = [0: (layer.objectIdField, layer.globalIdField)]
                let first = try journal.startSending([0])[0]
                let results = try await service.layer(id: 0).applyEdits(
                    LayerEdits(adds: first.edits.map { try EsriJSONFeature.feature(JSONReader.parse($0.planned.payload)) }),
                    options: ApplyEditsOptions(rollbackOnFailure: false, useGlobalIds: true))
                let records = zip(first.edits, results.addResults).map {
                    EditRecord(index: $0.planned.position.index, status: .applied, objectId: $1.objectId)
                }
                try journal.record(batch: 0, records, state: .done)
                #expect(try await Self.sendLeavingInDoubt([1], journal: journal, service: service) == 50)
                let path = journal.path
                let queue = try DatabaseQueue(path: path)
                try await queue.write { db in try Self.writeAsVersion4(db) }
                try queue.close()

                let reopened = try ApplyJournal.open(at: path)
                #expect(try reopened.batch(3).edits == planned, "read from the rows as version 4 wrote them")
                #expect(try reopened.counts().applied == 50)
                let summary = try await BatchApplier(journal: reopened, service: service, settings: try reopened.header().settings, keys: keys).run()
                #expect(summary.reconciledBatches == 1 && summary.reconciledApplied == 50, "the batch in doubt was found applied: \(summary)")
                #expect(try reopened.counts().applied == 300)
                let occurrences = try await BatchApplierIntegrationTests.occurrences(journal: reopened, layer: service.layer(id: 0))
                #expect(occurrences.count == 300 && occurrences.values.allSatisfy { $0 == 1 }, "every park once")
            }
        }
    }

    /// Marks batches `ids` as being sent and applies their adds to layer 0 without recording the outcomes, as a run
    /// killed after sending leaves them; returns the number of adds sent.
    static func sendLeavingInDoubt(_ ids: [Int], journal: ApplyJournal, service: FeatureService) async throws -> Int {
        let sent = try journal.startSending(ids).flatMap(\.edits).compactMap { edit -> Feature? in
            guard let value = try? JSONReader.parse(edit.planned.payload) else { return nil }
            return try? EsriJSONFeature.feature(value)
        }
        _ = try await service.layer(id: 0).applyEdits(
            LayerEdits(adds: sent), options: ApplyEditsOptions(rollbackOnFailure: false, useGlobalIds: true))
        return sent.count
    }

    /// Rewrites a journal as version 4 wrote it: a row per edit (with its outcome), no packs.
    static func writeAsVersion4(_ db: Database) throws {
        for row in try Row.fetchAll(
            db, sql: "SELECT pack.batch, pack.text, pack.edits, pack.slots, pack.count, batch.applied FROM pack JOIN batch ON batch.id = pack.batch")
        {
            let (batch, page, count): (Int, Int64, Int) = (row[0], row[1], row[4])
            let pack = try EditPack([UInt8](row[2] as Data))
            let slots = try EditPack.slots([UInt8](row[3] as Data), count: count)
            let applied = try (row[5] as Data?).map { try AppliedIDs.decode([UInt8]($0)) }
            for (entry, slot) in zip(pack.entries, slots) {
                let objectId = applied?[entry.position.index]
                try db.execute(
                    sql: """
                        INSERT INTO edit (position, line, sourceTable, batch, kind, layer, globalId, objectId, payload, source, status, resultObjectId, text, slot)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', '', ?, ?, ?, ?)
                        """,
                    arguments: [
                        entry.position.index, entry.position.line, entry.position.table, batch, entry.kind.rawValue, entry.layer, entry.globalId,
                        entry.objectId, objectId == nil ? "pending" : "applied", objectId, page, slot,
                    ])
            }
        }
        try db.execute(
            sql: "DROP TABLE pack; ALTER TABLE batch DROP COLUMN applied; ALTER TABLE run DROP COLUMN packSpan; UPDATE run SET version = 4;")
    }

    /// Rewrites a journal as version 3 wrote it: each edit's texts in its own row, no pages of texts.
    static func writeAsVersion3(_ db: Database) throws {
        try writeAsVersion4(db)
        for row in try Row.fetchAll(db, sql: "SELECT id, texts FROM planText") {
            let id: Int64 = row[0]
            let bytes: Data = row[1]
            let texts = try PlanTexts([UInt8](bytes))
            for slot in 0..<texts.count {
                let (payload, source) = try texts.texts(at: slot)
                try db.execute(
                    sql: "UPDATE edit SET payload = ?, source = ?, text = NULL, slot = NULL WHERE text = ? AND slot = ?",
                    arguments: [payload, source, id, slot])
            }
        }
        try db.execute(
            sql: """
                ALTER TABLE edit DROP COLUMN text;
                ALTER TABLE edit DROP COLUMN slot;
                DROP TABLE planText;
                UPDATE run SET version = 3;
                """)
    }
}
