/// The gates every measured scenario has without writing a threshold: at most `maxFailedEditRate` of its edits and
/// at most `maxFailedRequestRate` of its HTTP requests may fail. So a broken target, one whose every read fails
/// say, can never pass a CI gate by default. Pure; the verdict, the summary and the JUnit report all read it.
struct ScenarioGates: Sendable, Equatable {
    /// The largest share of edits that may fail (`maxFailedEditRate`).
    var maxFailedEditRate: Double
    /// The largest share of HTTP requests, each attempt counted as `http_req_failed` counts it, that may fail
    /// (`maxFailedRequestRate`); 1 turns the gate off; nil in reports from before the gate existed.
    var maxFailedRequestRate: Double?

    init(maxFailedEditRate: Double, maxFailedRequestRate: Double?) {
        self.maxFailedEditRate = maxFailedEditRate
        self.maxFailedRequestRate = maxFailedRequestRate
    }

    /// One gate applied to one scenario: what it checks, why it failed (nil: it passed), and what was measured.
    struct Check: Sendable, Equatable {
        var name: String
        var failure: String?
        var detail: String
    }

    /// The gates in words, with their limits and the key that changes each, e.g. `failed requests ≤ 1 % per scenario
    /// (maxFailedRequestRate)`: the summary and the reports state them, as they are not written in the file.
    var summary: String {
        var gates = ["failed edits ≤ \(Self.percent(maxFailedEditRate)) (maxFailedEditRate)"]
        if let limit = maxFailedRequestRate {
            gates.append(
                limit >= 1 ? "no failed-request gate (maxFailedRequestRate: 1)" : "failed requests ≤ \(Self.percent(limit)) (maxFailedRequestRate)")
        }
        return gates.joined(separator: ", ") + ", per scenario"
    }

    /// The gates `view` is held to: the failed-edit share where it sent edits, the failed-request share where it sent
    /// requests (unless the limit is 1).
    func checks(_ view: ScenarioView) -> [Check] {
        var checks: [Check] = []
        let attempted = view.editsApplied + view.editsFailed
        if attempted > 0 {
            checks.append(Self.check("edits", failed: view.editsFailed, of: attempted, limit: maxFailedEditRate, key: "maxFailedEditRate"))
        }
        if let limit = maxFailedRequestRate, limit < 1, view.requests > 0 {
            checks.append(Self.check("requests", failed: view.failedRequests, of: view.requests, limit: limit, key: "maxFailedRequestRate"))
        }
        return checks
    }

    private static func check(_ noun: String, failed: Int, of total: Int, limit: Double, key: String) -> Check {
        let rate = Double(failed) / Double(total)
        let measured = "\(failed) of \(total) \(noun) failed"
        return Check(
            name: "failed \(noun) ≤ \(percent(limit))",
            failure: rate > limit ? "\(measured) (\(percent(rate))), above the allowed \(percent(limit)) (\(key))" : nil,
            detail: measured)
    }

    static func percent(_ fraction: Double) -> String { "\(Figures.number(fraction * 100)) %" }
}

extension RunReport.Plan {
    /// The implicit gates the run was held to.
    var gates: ScenarioGates { ScenarioGates(maxFailedEditRate: maxFailedEditRate, maxFailedRequestRate: maxFailedRequestRate) }
}
