import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import GRDB
import SQLiteSupport
import Testing

@testable import LocalFeatureServer

/// Client GlobalIDs through the real server on 127.0.0.1, port 0: random ones (as ArcGIS Pro sends them) and
/// time-ordered ones land, keep their canonical form, are found by GlobalID, and a second add of any of them is
/// refused with 1022 as before.
@Suite struct GlobalIDIndexHTTPTests {
    /// A time-ordered (version 7) GUID as a client would make it: `milliseconds`, `sequence`, then `random`.
    static func timeOrdered(milliseconds: UInt64, sequence: Int, random: inout SplitMix64) -> String {
        let high = (milliseconds & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | UInt64(sequence & 0xFFF)
        let low = (random.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let hex = String(high, radix: 16, uppercase: true).leftPadded(16) + String(low, radix: 16, uppercase: true).leftPadded(16)
        let digits = Array(hex)
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(digits[$0]) }
        return "{" + groups.joined(separator: "-") + "}"
    }

    static func adds(_ globalIds: [String]) -> String {
        let features = globalIds.enumerated().map { index, id in
            #"{"attributes":{"name":"Park \#(index)","state":"CO","category":1,"area_km2":2.5,"visitors":\#(index),"GlobalID":"\#(id)"},"geometry":{"x":-105,"y":40}}"#
        }
        return "[" + features.joined(separator: ",") + "]"
    }

    static func applyEdits(
        _ transport: CurlTransport, _ server: TestServer, _ globalIds: [String], rollback: Bool = true
    ) async throws -> ApplyEditsResult {
        let request = HTTPRequest.form(
            url: server.serviceURL + "/0/applyEdits",
            fields: [
                FormField("f", "json"), FormField("useGlobalIds", "true"), FormField("rollbackOnFailure", rollback ? "true" : "false"),
                FormField("adds", adds(globalIds)),
            ])
        let response = try await transport.send(request)
        return try WireJSON.decode(ApplyEditsResult.self, from: String(decoding: response.body, as: UTF8.self))
    }

    static func count(_ transport: CurlTransport, _ server: TestServer, where clause: String) async throws -> Int {
        let url = server.serviceURL + "/0/query?where=" + FormEncoding.escape(clause) + "&returnCountOnly=true&f=json"
        return try WireJSON.decode(CountResult.self, from: String(decoding: try await transport.send(HTTPRequest(url: url)).body, as: UTF8.self))
            .count
    }

    @Test("random and time-ordered client GlobalIDs land once each, in canonical form, and a second add is refused", .timeLimit(.minutes(2)))
    func randomAndOrdered() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                var system = SystemRandomNumberGenerator()
                var random = SplitMix64(seed: 42)
                let batches = 6
                let size = 250
                var sent: [String] = []
                for batch in 0..<batches {
                    // Alternating: random version 4 GUIDs, in lower case without braces half the time, and time-ordered ones.
                    let ids: [String]
                    if batch % 2 == 0 {
                        ids = (0..<size).map { _ in GlobalID.make(using: &system) }
                    } else {
                        ids = (0..<size).map { Self.timeOrdered(milliseconds: 1_764_633_600_000 + UInt64(batch), sequence: $0, random: &random) }
                    }
                    let wire = batch % 4 == 0 ? ids.map { String($0.dropFirst().dropLast()).lowercased() } : ids
                    let result = try await Self.applyEdits(transport, server, wire)
                    #expect(result.addResults.count == size)
                    let applied = result.addResults.filter { $0.success }.count
                    #expect(applied == size)
                    #expect(result.addResults.map(\.globalId) == ids.map { Optional($0) })
                    sent += ids
                }
                #expect(Set(sent).count == sent.count)
                #expect(try await Self.count(transport, server, where: "1=1") == 12 + batches * size)
                for id in [sent[0], sent[size], sent[sent.count - 1]] {
                    #expect(try await Self.count(transport, server, where: "GlobalID = '\(id)'") == 1)
                }
                // A second add of a random and of a time-ordered GlobalID, in either form: refused with 1022, the
                // other adds of the request applied (no rollback).
                let again = [
                    String(sent[1].dropFirst().dropLast()).lowercased(), sent[size + 1],
                    Self.timeOrdered(milliseconds: 1, sequence: 0, random: &random),
                ]
                let result = try await Self.applyEdits(transport, server, again, rollback: false)
                #expect(result.addResults.map(\.success) == [false, false, true])
                #expect(result.addResults[0].error?.code == 1022)
                #expect(result.addResults[1].error?.code == 1022)
                #expect(result.addResults[0].error?.description == "Unique constraint violation: GlobalID \(sent[1]) already exists.")
                #expect(result.addResults[1].globalId == sent[size + 1])
                #expect(try await Self.count(transport, server, where: "1=1") == 12 + batches * size + 1)
            }
        }
    }
}

@Suite struct WALCheckpointerTests {
    /// A database at `path` (created with a table `t`) whose writer never copies its log itself.
    static func pool(at path: String) async throws -> DatabasePool {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try await pool.write { db in try db.execute(sql: "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, payload TEXT)") }
        return pool
    }

    /// Adds 2,000 rows of about 200 bytes to `t`: some 500 KB into the log.
    static func fill(_ pool: DatabasePool, with letter: String) async throws {
        try await pool.write { db in
            for index in 0..<2000 {
                try db.execute(sql: "INSERT INTO t (payload) VALUES (?)", arguments: [String(repeating: letter, count: 200) + "\(index)"])
            }
        }
    }

    static func size(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }

    /// The file's size once it has grown past `bytes` more than `before`, or after 5 s.
    static func grown(_ path: String, from before: Int, by bytes: Int) async throws -> Int {
        var after = try size(path)
        for _ in 0..<500 where after <= before + bytes {
            try await Task.sleep(for: .milliseconds(10))
            after = try size(path)
        }
        return after
    }

    @Test("the checkpointer copies a store's write-ahead log into its file without the writer", .timeLimit(.minutes(1)))
    func copiesTheLog() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("log.sqlite")
        let pool = try await Self.pool(at: path)
        try await Self.fill(pool, with: "x")
        let before = try Self.size(path)
        let checkpointer = try #require(WALCheckpointer(path: path, label: "test.checkpoint", interval: 0.01))
        let after = try await Self.grown(path, from: before, by: 0)
        checkpointer.stop()
        checkpointer.stop()  // a second stop returns at once
        let message = "the file stayed at \(before) bytes"
        #expect(after > before + 400_000, Comment(rawValue: message))
        #expect(try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 2000)
        try pool.close()
    }

    @Test("an idle database is looked at less and less often, and as often as before once it is written again", .timeLimit(.minutes(1)))
    func idleBackOff() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("idle.sqlite")
        let pool = try await Self.pool(at: path)
        let checkpointer = try #require(WALCheckpointer(path: path, label: "test.idle", interval: 0.01, idleInterval: 0.5))
        defer { checkpointer.stop() }
        // 2 s idle: every 10 ms would be 200 looks; doubling from 10 ms to 500 ms is about 10. A busy machine makes
        // fewer, never more.
        try await Task.sleep(for: .seconds(2))
        let idle = checkpointer.checkpoints
        #expect(idle >= 2 && idle <= 40, "looks while idle: \(idle)")
        // Written again: the log is copied while it grows (the file grows past what the idle database held).
        let before = try Self.size(path)
        try await Self.fill(pool, with: "y")
        let after = try await Self.grown(path, from: before, by: 400_000)
        let message = "the file stayed at \(before) bytes (\(after))"
        #expect(after > before + 400_000, Comment(rawValue: message))
        try pool.close()
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: max(width - count, 0)) + self
    }
}
