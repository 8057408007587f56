import LoadRunner
import Testing

@Suite struct SweepTests {
    static let yaml = """
        version: 2
        name: sweep
        target: local
        scenarios:
          counts:
            executor: constant-vus
            vus: 1
            duration: 3s
            exec: query
            sweep: { vus: [1, 4, 16], warmUp: 1s, slo: 200ms }
          after:
            executor: shared-iterations
            vus: 1
            iterations: 1
            startAfter: counts
        thresholds:
          "http_req_duration{scenario:counts[vus=16]}": ["p(95)<500"]
        """

    @Test("a sweep becomes warm-up and point scenarios in sequence; later scenarios follow its last point")
    func expansion() throws {
        let plan = try ScenarioParser.parse(yaml: Self.yaml, file: "s.yaml")
        #expect(
            plan.scenarios.map(\.name) == [
                "counts[vus=1] warm-up", "counts[vus=1]", "counts[vus=4] warm-up", "counts[vus=4]", "counts[vus=16] warm-up", "counts[vus=16]",
                "after",
            ])
        #expect(
            plan.scenarios.map(\.startAfter) == [
                nil, "counts[vus=1] warm-up", "counts[vus=1]", "counts[vus=4] warm-up", "counts[vus=4]", "counts[vus=16] warm-up", "counts[vus=16]",
            ])
        #expect(plan.scenarios.filter(\.isWarmUp).count == 3)
        guard case .constantVUs(let warm) = plan.scenarios[2].executor, case .constantVUs(let point) = plan.scenarios[3].executor else {
            Issue.record("constant-vus expected")
            return
        }
        #expect(warm.vus == 4 && warm.duration == .seconds(1) && point.vus == 4 && point.duration == .seconds(3))
        #expect(plan.scenarios[5].sweepPoint == SweepPoint(sweep: "counts", parameter: "vus", value: 16, sloMilliseconds: 200))
        #expect(plan.scenarios[5].tags["sweep"] == "counts")
        #expect(plan.thresholds.count == 1)
    }

    @Test("batch-size sweeps set adds; every sweep mistake is reported with its field and fix")
    func mistakes() throws {
        let batch = try ScenarioParser.parse(
            yaml: """
                version: 2
                name: b
                target: local
                scenarios:
                  adds:
                    executor: shared-iterations
                    vus: 2
                    iterations: 10
                    exec: applyEdits
                    sweep: { batchSize: [1, 100] }
                """, file: "b.yaml")
        #expect(batch.scenarios.map(\.name) == ["adds[batchSize=1]", "adds[batchSize=100]"], "no warm-up for an iteration-based executor")
        let adds = batch.scenarios.map { scenario -> Int? in
            guard case .applyEdits(let edits) = scenario.operations[0].settings else { return nil }
            return edits.adds
        }
        #expect(adds == [1, 100])

        let error = #expect(throws: ScenarioFileError.self) {
            try ScenarioParser.parse(
                yaml: """
                    version: 2
                    name: b
                    target: local
                    scenarios:
                      two:
                        executor: constant-vus
                        vus: 1
                        duration: 1s
                        sweep: { vus: [1, 2], rate: [3] }
                      wrong:
                        executor: shared-iterations
                        vus: 1
                        iterations: 1
                        sweep: { vus: [1, 1], warmUp: 2s }
                      rate:
                        executor: constant-vus
                        vus: 1
                        duration: 1s
                        sweep: { rate: [0] }
                    """, file: "bad.yaml")
        }
        let text = error?.description ?? ""
        #expect(text.contains("scenarios.two.sweep") && text.contains("sweeps more than one parameter"), "\(text)")
        #expect(text.contains("scenarios.wrong.sweep.vus") && text.contains("only constant-vus has"))
        #expect(text.contains("lists a value twice"))
        #expect(text.contains("scenarios.wrong.sweep.warmUp") && text.contains("time-based executor"))
        #expect(text.contains("scenarios.rate.sweep.rate[0]"))
        #expect(text.contains("scenarios.rate.sweep.rate") && text.contains("only constant-arrival-rate has"))
    }
}
