import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

@testable import LocalFeatureServer

/// Rough throughput probes, off by default (set `FEATURELOAD_PROBE=1`). They print rates; they assert only
/// that batching pays. Debug-build numbers: compare ratios, not absolute rates.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["FEATURELOAD_PROBE"] != nil))
struct ThroughputProbeTests {
    @Test("store: 1000-add batches in one transaction", .timeLimit(.minutes(2)))
    func storeBatches() async throws {
        try await withStore { store in
            let adds = (0..<1000).map { parkAdd(["name": .string("Bulk \($0)"), "visitors": .int(Int64($0))]) }
            let clock = ContinuousClock()
            let elapsed = try await clock.measure {
                for _ in 0..<10 { _ = try await store.applyEdits(layerId: 0, batch: EditBatch(adds: adds)) }
            }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("store: 10 × 1000 adds in \(elapsed) = \(Int(10_000 / seconds)) rows/s")
        }
    }

    @Test("HTTP: edits/s with 1-edit vs 100-edit applyEdits requests", .timeLimit(.minutes(2)))
    func httpBatches() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                func rate(batch: Int, requests: Int, concurrency: Int) async throws -> Double {
                    let adds =
                        "["
                        + (0..<batch).map {
                            #"{"attributes":{"name":"P\#($0)","state":"CO","category":1,"visitors":\#($0)},"geometry":{"x":-105,"y":40}}"#
                        }.joined(separator: ",") + "]"
                    let request = HTTPRequest.form(
                        url: server.serviceURL + "/0/applyEdits",
                        fields: [FormField("f", "json"), FormField("adds", adds), FormField("rollbackOnFailure", "true")]
                    )
                    let clock = ContinuousClock()
                    let elapsed = try await clock.measure {
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            for worker in 0..<concurrency {
                                group.addTask {
                                    for _ in stride(from: worker, to: requests, by: concurrency) {
                                        let response = try await transport.send(request)
                                        precondition(WireJSON.error(in: response.body) == nil)
                                    }
                                }
                            }
                            try await group.waitForAll()
                        }
                    }
                    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                    return Double(batch * requests) / seconds
                }
                let single = try await rate(batch: 1, requests: 2000, concurrency: 8)
                let hundred = try await rate(batch: 100, requests: 100, concurrency: 8)
                let thousand = try await rate(batch: 1000, requests: 10, concurrency: 2)
                print("HTTP applyEdits: 1/request \(Int(single)) edits/s, 100/request \(Int(hundred)) edits/s, 1000/request \(Int(thousand)) edits/s")
                #expect(hundred > single * 5)
                let clock = ContinuousClock()
                var bytes = 0
                let queryTime = try await clock.measure {
                    for _ in 0..<10 {
                        let response = try await transport.send(HTTPRequest(url: server.serviceURL + "/0/query?where=1%3D1&outFields=*&f=json"))
                        bytes = response.body.count
                    }
                }
                print("HTTP query of 2000 features × 8 fields (\(bytes) bytes): \(queryTime / 10) each")
            }
        }
    }
}
