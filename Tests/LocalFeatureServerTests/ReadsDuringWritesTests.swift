import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Synchronization
import Testing

/// Reads against writes over HTTP. Whether a read is answered while a write is out depends on the client's reader
/// being scheduled within the writes' few hundred milliseconds, which a machine running hundreds of tests at once
/// cannot promise; `scripts/test` runs this suite in its serial phase.
@Suite struct ReadsDuringWritesTests {
    @Test("queries keep answering, and see only whole batches, while large edit batches are written", .timeLimit(.minutes(1)))
    func readsDuringWrites() async throws {
        /// Whether the writes have gone out, and how many have not been answered yet.
        final class Writes: Sendable {
            let sent = Mutex(false)
            let pending = Mutex(8)
        }
        struct Tally: Sendable { var added = 0, readsWhileWriting = 0, partialBatchesSeen = 0 }
        let writes = Writes()
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let adds =
                    "["
                    + (0..<500).map { #"{"attributes":{"name":"Bulk \#($0)","visitors":\#($0)},"geometry":{"x":-100,"y":40}}"# }.joined(
                        separator: ","
                    ) + "]"
                // The writes go out once the readers are answering, so reads are surely under way while they run.
                let (readersAnswering, answering) = AsyncStream.makeStream(of: Void.self)
                let tally = try await withThrowingTaskGroup(of: Tally.self) { group in
                    for _ in 0..<2 {
                        group.addTask {
                            // Reads go on until every write has been answered (at most 10,000 of them).
                            var tally = Tally()
                            for _ in 0..<10_000 where writes.pending.withLock({ $0 }) > 0 {
                                let afterWritesWent = writes.sent.withLock { $0 }
                                let response = try await transport.send(HTTPRequest(url: server.serviceURL + "/0/query?returnCountOnly=true&f=json"))
                                answering.yield()
                                let count = try WireJSON.decode(CountResult.self, from: response.body).count
                                if count < 12 || (count - 12) % 500 != 0 { tally.partialBatchesSeen += 1 }
                                if afterWritesWent, writes.pending.withLock({ $0 }) > 0 { tally.readsWhileWriting += 1 }
                            }
                            return tally
                        }
                    }
                    for await _ in readersAnswering { break }
                    writes.sent.withLock { $0 = true }
                    for _ in 0..<8 {
                        group.addTask {
                            let response = try await transport.send(
                                HTTPRequest.form(url: server.serviceURL + "/0/applyEdits", fields: [FormField("f", "json"), FormField("adds", adds)])
                            )
                            writes.pending.withLock { $0 -= 1 }
                            return Tally(added: try WireJSON.decode(ApplyEditsResult.self, from: response.body).addResults.filter(\.success).count)
                        }
                    }
                    var total = Tally()
                    for try await part in group {
                        total.added += part.added
                        total.readsWhileWriting += part.readsWhileWriting
                        total.partialBatchesSeen += part.partialBatchesSeen
                    }
                    return total
                }
                #expect(tally.added == 4000)
                #expect(tally.partialBatchesSeen == 0, "a query saw part of a batch")
                #expect(tally.readsWhileWriting > 0, "no query sent after the writes was answered while a write was still out")
            }
        }
    }
}
