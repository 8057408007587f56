import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import LocalFeatureServer
import Testing

@testable import LoadRunner

/// Requests still waiting for their answer when the end of a scenario cuts them off are results: failed, tagged
/// `status:interrupted`, their wait a duration, their edits of unknown outcome. A stalled service must never vanish
/// into a PASS.
@Suite struct CutOffRequestTests {
    @Test("a request cancelled while it waits is logged as interrupted and failed, with the time it waited")
    func transportLogsTheCutOff() async throws {
        let (sent, sending) = AsyncStream<Void>.makeStream()
        let transport = RecordingTransport(
            InMemoryTransport { _ in
                sending.yield()
                try await Task.sleep(for: .seconds(3600))
                return .json("{}")
            })
        let log = RequestLog()
        let request = HTTPRequest(method: .post, url: "http://test/FeatureServer/0/applyEdits", body: .bytes(Array("f=json".utf8)))
        let task = Task {
            try await RequestLog.$current.withValue(log) { _ = try await transport.send(request) }
        }
        // Once the request is with the service, it waits at least this long before the cut.
        var iterator = sent.makeAsyncIterator()
        await iterator.next()
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        _ = await task.result
        let samples = log.drain()
        #expect(samples.count == 1)
        let sample = try #require(samples.first)
        #expect(sample.status == RequestSample.interrupted)
        #expect(sample.failed)
        #expect(sample.duration >= .milliseconds(50))
        #expect(sample.bytesSent == 6)
        #expect(RequestSample.statusTag(sample.status) == "interrupted")
    }

    @Test(
        "every applyEdits stalls: the cut-off requests fail max<500 and http_req_failed, their edits are of unknown outcome",
        .timeLimit(.minutes(1)))
    func stalledRequestsAreCounted() async throws {
        let faults = LocalFeatureServerConfiguration.Faults(rules: [
            FaultRule(kind: .stall, rate: 1, scope: FaultScope(operation: "applyEdits"), stallSeconds: 300)
        ])
        let report = try await RunnerIntegrationTests.run(
            RunnerIntegrationTests.plan(
                "  stuck:\n    executor: constant-vus\n    vus: 3\n    duration: 1s\n    gracefulStop: 1s\n",
                thresholds: "thresholds:\n  http_req_duration: [\"max<500\"]\n  http_req_failed: [\"rate<0.01\"]\n"),
            faults: faults)
        let view = try #require(report.views.first)
        // Each VU's first request stalls and is still waiting when the grace ends.
        #expect(view.requests == 3)
        #expect(view.failedRequests == 3)
        #expect(view.cutOffRequests == 3)
        // Sent before the 1 s duration ended, cut off after the 1 s grace: each waited at least that grace.
        #expect(view.cutOffLongestMilliseconds >= 1000)
        #expect(view.latency.max >= 1000)
        #expect(view.editsUnknown == 3)
        #expect(view.editsFailed == 3)
        #expect(report.aggregate(.httpReqs, filter: ["status": "interrupted"])?.count == 3)
        #expect(!report.verdict.passed)
        #expect(report.thresholds.allSatisfy { !$0.passed }, "\(report.thresholds)")
        let cutOff = try #require(view.cutOffText)
        #expect(cutOff.hasPrefix("3 requests were still waiting for the service at the end of its gracefulStop"), "\(cutOff)")
        // Every format says so.
        #expect(ReportRenderer.summary(report).contains(cutOff))
        #expect(ReportRenderer.markdown(report).contains(cutOff))
        #expect(HTMLRenderer.render(report).contains(HTMLRenderer.escape(cutOff)))
        #expect(JUnitRenderer.render(report).contains(JUnitRenderer.escape(cutOff)))
    }

    @Test("a scenario whose requests all answer says nothing about cut-off requests", .timeLimit(.minutes(1)))
    func nothingCutOff() async throws {
        let report = try await RunnerIntegrationTests.run(
            RunnerIntegrationTests.plan("  fine:\n    executor: shared-iterations\n    vus: 2\n    iterations: 10\n"))
        let view = try #require(report.views.first)
        #expect(view.requests == 10)
        #expect(view.cutOffRequests == 0)
        #expect(view.cutOffText == nil)
        #expect(report.verdict.passed)
    }
}

/// An iteration refused before it could send anything is a failed iteration, which a threshold can gate on.
@Suite struct FailedIterationTests {
    @Test("iterations refused for want of features to delete count in iteration_failed; answered ones do not", .timeLimit(.minutes(1)))
    func refusedIterationsFail() async throws {
        // Six features in the pool, minus the reserve kept for others: a few deletes succeed, the rest find nothing left.
        let report = try await RunnerIntegrationTests.run(
            RunnerIntegrationTests.plan(
                "  deleting:\n    executor: shared-iterations\n    vus: 1\n    iterations: 20\n    setup: { seed: 12, sample: 0 }\n    exec: applyEdits\n    adds: 0\n    deletes: 1\n",
                thresholds: "thresholds:\n  iteration_failed: [\"rate<0.5\"]\n"))
        let failed = try #require(report.aggregate(.iterationFailed))
        #expect(failed.count == 20)
        let refused = try #require(report.views.first).record.errors.filter { $0.key.hasPrefix("no existing feature left") }.values.reduce(0, +)
        #expect(refused > 0)
        #expect(failed.passes == Double(refused), "every refused iteration, and only those, failed")
        #expect(report.thresholds.first?.passed == (Double(refused) / 20 < 0.5))
    }

    @Test("an edit refused by validation on purpose does not make its iteration fail")
    func validationIsNotFailure() {
        var sample = IterationSample(operation: 0, intendedStart: .zero)
        sample.editsInvalid = 1
        sample.fail("not sent: no contingent value")
        #expect(!sample.failed)
        var refused = IterationSample(operation: 0, intendedStart: .zero)
        refused.fail(edits: 1, "no existing feature left to update")
        #expect(refused.failed)
    }
}
