import Testing

@testable import LoadRunner

/// One rule writes every figure: whole counts as whole numbers, units with their figures, and enough digits to
/// decide the condition a value is compared with.
@Suite struct FiguresTests {
    @Test("a rate of 0.0056 against rate<0.01 reads 0.0056 (0.56 %), never 0.01")
    func rates() {
        #expect(Figures.measured(0.0056, key: "http_req_failed", condition: "rate<0.01") == "0.0056 (0.56 %)")
        #expect(Figures.measured(0.0100004, key: "edit_failed", condition: "rate<0.01") != "0.01 (1 %)")
        #expect(Figures.measured(0, key: "http_req_failed", condition: "rate<0.01") == "0 (0 %)")
    }

    @Test("counts are whole numbers; latencies carry ms; per-second counter rates carry /s")
    func units() {
        #expect(Figures.measured(800, key: "edits", condition: "count>=1000") == "800")
        #expect(Figures.measured(14_000, key: "http_reqs{scenario:a}", condition: "count<2750") == "14000")
        #expect(Figures.measured(183.4567, key: "http_req_duration{scenario:a}", condition: "p(95)<200") == "183 ms")
        #expect(Figures.measured(12.345, key: "http_reqs", condition: "rate>10") == "12.3/s")
    }

    @Test("a value just under its limit keeps the digits that show it is under")
    func decisive() {
        #expect(Figures.measured(199.96, key: "http_req_duration", condition: "p(95)<200") == "199.96 ms")
        #expect(Figures.decisive(0.0100001, limit: 0.01) == "0.0100001")
        #expect(Figures.decisive(3.14159, limit: 100) == "3.14")
    }

    @Test("plain figures: no scientific notation, no trailing .0")
    func numbers() {
        #expect(Figures.number(800) == "800")
        #expect(Figures.number(14_000) == "14000")
        #expect(Figures.number(2_750.4) == "2750")
        #expect(Figures.number(0.9234) == "0.923")
        #expect(Figures.number(17.53) == "17.5")
        #expect(Figures.number(.infinity) == "∞")
    }

    @Test("the summary's batch column shows a dash for an operation that edits nothing", .timeLimit(.minutes(1)))
    func queryBatch() async throws {
        let report = try await RunnerIntegrationTests.run(
            RunnerIntegrationTests.plan(
                "  reads:\n    executor: shared-iterations\n    vus: 1\n    iterations: 3\n    exec: query\n    returnCountOnly: true\n",
                thresholds: "thresholds:\n  http_req_failed: [\"rate<0.01\"]\n  http_reqs: [\"count>=3\"]\n"))
        let summary = ReportRenderer.summary(report)
        let row = try #require(summary.split(separator: "\n").first { $0.hasPrefix("reads") })
        #expect(row.split(separator: " ", omittingEmptySubsequences: true)[2] == "–", "\(row)")
        #expect(summary.contains("threshold http_req_failed: rate<0.01 — measured 0 (0 %): pass"), "\(summary)")
        #expect(summary.contains("threshold http_reqs: count>=3 — measured 3: pass"), "\(summary)")
    }
}

@Suite struct ErrorKindTests {
    @Test("a long error keeps the server's reason, its curl code and advice whole: the URL is shortened, not the message")
    func keepsTheReason() {
        let url =
            "http://127.0.0.1:8080/arcgis/rest/services/" + String(repeating: "very-long-service-name/", count: 8) + "FeatureServer/0/applyEdits"
        let message =
            "receiving failed: \(url) (curl 56: Recv failure: Connection reset by peer). The connection broke mid-request; the server may have crashed."
        #expect(
            ScenarioAccumulator.errorKind(message)
                == "receiving failed: http://127.0.0.1:8080/…/FeatureServer/0/applyEdits (curl 56: Recv failure: Connection reset by peer). The connection broke mid-request; the server may have crashed."
        )
        let query =
            "count query at http://127.0.0.1:8080/arcgis/rest/services/parkboundaries/FeatureServer/0/query?f=json&where=1%3D1&geometry=%7B%22rings%22 "
            + "returned ArcGIS error 400: Unable to complete operation. ['geometry' parameter is invalid; a ring needs at least four points (closed), got 3]. "
            + "Check the query's parameters (where clause, field names, geometry and spatialRel, outSR)."
        let kind = ScenarioAccumulator.errorKind(query)
        #expect(kind.hasPrefix("count query at http://127.0.0.1:8080/…/FeatureServer/0/query returned ArcGIS error 400"), "\(kind)")
        #expect(kind.contains("a ring needs at least four points (closed), got 3]. Check the query's parameters"), "\(kind)")
        let endless = "failed: " + String(repeating: "x", count: 1_000) + " (curl 7: Couldn't connect)"
        #expect(ScenarioAccumulator.errorKind(endless).count == 400 && ScenarioAccumulator.errorKind(endless).hasSuffix("(curl 7: Couldn't connect)"))
        #expect(ScenarioAccumulator.errorKind("short") == "short")
    }
}
