import FeatureModel
import Testing

@testable import LocalFeatureServer

/// The pure fault decisions: seeded reproduction, rates, scopes, distributions, and the settings' wire forms.
@Suite struct FaultDecisionTests {
    typealias Faults = LocalFeatureServerConfiguration.Faults

    static func kinds(_ faults: Faults, count: Int, path: String = "/arcgis/rest/services/parks/FeatureServer/0/query") -> [FaultKind?] {
        var decider = FaultDecider(faults)
        return (0..<count).map { _ in decider.decide(path: path, operation: FaultDecider.operation(of: path)).action?.kind }
    }

    @Test("the same seed gives the same decisions; another seed gives others")
    func reproducible() {
        let faults = Faults(seed: 42, rules: [FaultRule(kind: .http503, rate: 0.2), FaultRule(kind: .http429, rate: 0.2)])
        let first = Self.kinds(faults, count: 200)
        #expect(first == Self.kinds(faults, count: 200))
        var other = faults
        other.seed = 43
        #expect(first != Self.kinds(other, count: 200))
        #expect(first.contains(.http503) && first.contains(.http429) && first.contains(nil))
    }

    @Test("request-level rates are honoured and exclusive", arguments: [0.0, 0.05, 0.3, 1.0])
    func rates(rate: Double) {
        let faults = Faults(seed: 7, rules: [FaultRule(kind: .http500, rate: rate), FaultRule(kind: .stall, rate: 1 - rate)])
        let kinds = Self.kinds(faults, count: 10_000)
        let errors = kinds.filter { $0 == .http500 }.count
        #expect(abs(Double(errors) - rate * 10_000) <= 300, "rate \(rate): \(errors) of 10000")
        #expect(kinds.allSatisfy { $0 != nil }, "the rates add up to 1: every request gets exactly one fault")
    }

    @Test("scopes match by operation and by path pattern, case-insensitively")
    func scopes() {
        let faults = Faults(rules: [
            FaultRule(kind: .http503, rate: 1, scope: FaultScope(operation: "applyEdits")),
            FaultRule(kind: .arcgisError500, rate: 1, scope: FaultScope(path: "*/featureserver/1/*")),
        ])
        var decider = FaultDecider(faults)
        let base = "/arcgis/rest/services/parks/FeatureServer"
        #expect(decider.decide(path: base + "/0/applyEdits", operation: "applyedits").action?.kind == .http503)
        #expect(decider.decide(path: base + "/0/query", operation: "query").action == nil)
        #expect(decider.decide(path: base + "/1/query", operation: "query").action?.kind == .arcgisError500)
        #expect(FaultScope.glob("a*c*e", matches: "abcde") && FaultScope.glob("*", matches: "") && !FaultScope.glob("a*c", matches: "abd"))
        #expect(FaultDecider.operation(of: base) == "service" && FaultDecider.operation(of: base + "/0") == "layer")
        #expect(FaultDecider.operation(of: base + "/0/applyEdits/") == "applyedits")
    }

    @Test("edit failures are armed only for edit operations, and fail the same edits for the same seed")
    func editFailures() throws {
        let faults = Faults(seed: 9, rules: [FaultRule(kind: .editFailure, rate: 0.25)])
        var decider = FaultDecider(faults)
        #expect(decider.decide(path: "/x/query", operation: "query").editFailures == nil)
        let injection = try #require(decider.decide(path: "/x/applyEdits", operation: "applyedits").editFailures)
        let failed = (0..<4000).filter { injection.fails(.add, index: $0) }
        #expect(abs(failed.count - 1000) <= 150)
        #expect(failed == (0..<4000).filter { injection.fails(.add, index: $0) })
        #expect(injection.failure(.add, index: failed[0])?.code == 1017)
        #expect(EditFaultInjection(rate: 0, seed: 1).failure(.delete, index: 0) == nil)
        #expect(EditFaultInjection(rate: 1, seed: 1).failure(.update, index: 3)?.code == 1019)
    }

    @Test("latency distributions: fixed, uniform bounds, normal and log-normal medians, clamping")
    func latency() {
        var random = SplitMix64(seed: 5)
        func draws(_ distribution: LatencyDistribution, _ count: Int = 4000) -> [Double] {
            (0..<count).map { _ in
                let a = Double(random.next() >> 11) * 0x1.0p-53
                let b = Double(random.next() >> 11) * 0x1.0p-53
                let (seconds, attoseconds) = distribution.sample(a, b).components
                return Double(seconds) * 1000 + Double(attoseconds) / 1e15
            }.sorted()
        }
        #expect(draws(.fixed(milliseconds: 50), 10).allSatisfy { $0 == 50 })
        let uniform = draws(.uniform(minimum: 10, maximum: 20))
        #expect(uniform.first! >= 10 && uniform.last! <= 20 && abs(uniform[2000] - 15) < 1)
        #expect(abs(draws(.normal(mean: 100, standardDeviation: 10))[2000] - 100) < 2)
        let logNormal = draws(.logNormal(median: 20, sigma: 0.5))
        #expect(abs(logNormal[2000] - 20) < 1.5 && logNormal.last! > 40)
        #expect(draws(.normal(mean: 0, standardDeviation: 100)).first! == 0)
        #expect(draws(.fixed(milliseconds: 1e9), 1)[0] == LatencyDistribution.maximumMilliseconds)
    }

    @Test("the admin JSON round-trips and every problem is reported at once")
    func json() throws {
        let text = #"""
            {"seed": 42, "latency": {"distribution": "lognormal", "median": 20, "sigma": 0.5, "operation": "applyEdits"},
             "faults": [{"kind": "http503", "rate": 0.05}, {"kind": "HTTP429", "rate": 0.02, "retryAfter": 3},
                        {"kind": "stall", "rate": 0.01, "seconds": 5, "path": "*/0/*"}, {"kind": "editFailure", "rate": 0.5}]}
            """#
        let faults = try Faults.parse(json: text).get()
        #expect(faults.seed == 42 && faults.rules.count == 4)
        #expect(faults.latency == FaultLatency(.logNormal(median: 20, sigma: 0.5), scope: FaultScope(operation: "applyEdits")))
        #expect(faults.rules[1].kind == .http429 && faults.rules[1].retryAfterSeconds == 3)
        #expect(faults.rules[2].stallSeconds == 5 && faults.rules[2].scope.path == "*/0/*")
        let rendered = try WireJSON.string(faults.json)
        #expect(try Faults.parse(json: rendered).get() == faults)

        let bad =
            #"{"seed": -1, "bogus": 1, "latency": {"distribution": "gamma"}, "faults": [{"kind": "http418", "rate": 1}, {"kind": "http500", "rate": 1.5}]}"#
        guard case .failure(let failure) = Faults.parse(json: bad) else {
            Issue.record("accepted an invalid document")
            return
        }
        #expect(failure.problems.count >= 5, "\(failure.problems)")
        #expect(failure.problems.contains { $0.contains("bogus") } && failure.problems.contains { $0.contains("faults[1].rate") })
        if case .success = Faults.parse(json: #"{"faults": [{"kind": "http500", "rate": 0.6}, {"kind": "http503", "rate": 0.6}]}"#) {
            Issue.record("accepted request-level rates adding up to more than 1")
        }
    }

    @Test("command-line specifications of faults and latency")
    func specifications() throws {
        #expect(try FaultRule(specification: "http503:0.05") == FaultRule(kind: .http503, rate: 0.05))
        let limited = try FaultRule(specification: "http429:0.5:retryAfter=7@query")
        #expect(limited.retryAfterSeconds == 7 && limited.scope.operation == "query")
        let stall = try FaultRule(specification: "stall:1:seconds=2.5:path=*/0/*")
        #expect(stall.stallSeconds == 2.5 && stall.scope.path == "*/0/*")
        #expect(
            try FaultLatency(specification: "uniform:10,20@applyEdits")
                == FaultLatency(.uniform(minimum: 10, maximum: 20), scope: FaultScope(operation: "applyEdits")))
        #expect(try FaultLatency(specification: "fixed:50").distribution == .fixed(milliseconds: 50))
        for bad in ["http503", "teapot:0.1", "http503:2", "http429:0.1:retryAfter=-1", "stall:0.1:bogus=1"] {
            #expect(throws: LocalFeatureServerError.self, "\(bad)") { try FaultRule(specification: bad) }
        }
        for bad in ["fixed", "fixed:-1", "uniform:20,10", "gamma:1,2", "normal:1"] {
            #expect(throws: LocalFeatureServerError.self, "\(bad)") { try FaultLatency(specification: bad) }
        }
    }
}
