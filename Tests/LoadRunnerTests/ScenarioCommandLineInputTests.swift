import Foundation
import LoadRunner
import Testing

/// What the command line adds to a scenario file: k6's overrides and `--scenario`, `${NAME}` variables, run tags.
@Suite struct ScenarioCommandLineInputTests {
    static let yaml = """
        version: 2
        name: shapes
        target: local
        scenarios:
          steady:
            executor: constant-vus
            vus: 4
            duration: 30s
          burst:
            executor: shared-iterations
            vus: 4
            iterations: 1000
          ramp:
            executor: ramping-vus
            stages: [{ duration: 30s, target: 2 }]
          open:
            executor: constant-arrival-rate
            rate: 10
            duration: 30s
            preAllocatedVUs: 2
        compare:
          - baseline: steady
            candidate: burst
        thresholds:
          "http_req_duration{scenario:burst}": ["p(95)<500"]
        """

    static func parse(
        _ yaml: String = yaml, overrides: ScenarioOverrides = ScenarioOverrides(), environment: [String: String] = [:],
        commandLine: [String: String] = [:], tags: [String: String] = [:]
    ) throws(ScenarioFileError) -> ScenarioPlan {
        let options = ScenarioParseOptions(
            variables: ScenarioVariables(environment: environment, commandLine: commandLine), overrides: overrides, tags: tags)
        return try ScenarioParser.parse(yaml: yaml, file: "s.yaml", options: options)
    }

    static func problems(_ body: () throws(ScenarioFileError) -> ScenarioPlan) -> [ScenarioIssue] {
        do {
            _ = try body()
            return []
        } catch {
            return error.issues
        }
    }

    @Test("--vus, --duration and --iterations replace the setting of that name in the executors that have it")
    func overridesApply() throws {
        let plan = try Self.parse(overrides: ScenarioOverrides(vus: 2, duration: .seconds(1), scenarios: ["steady"]))
        #expect(plan.scenarios.map(\.name) == ["steady"])
        let arrivals = try Self.parse(overrides: ScenarioOverrides(duration: .seconds(1), scenarios: ["open"]))
        guard case .constantVUs(let steady) = plan.scenarios[0].executor, case .constantArrivalRate(let open) = arrivals.scenarios[0].executor else {
            Issue.record("executors changed kind")
            return
        }
        #expect(steady.vus == 2 && steady.duration == .seconds(1))
        #expect(open.duration == .seconds(1) && open.rate == 10)
        #expect(plan.overrides.summary == "--vus 2 --duration 1s --scenario steady")
        let burst = try Self.parse(overrides: ScenarioOverrides(vus: 1, iterations: 7, scenarios: ["burst"]))
        guard case .sharedIterations(let shared) = burst.scenarios[0].executor else {
            Issue.record("burst is not shared-iterations")
            return
        }
        #expect(shared.vus == 1 && shared.iterations == 7)
    }

    @Test("an override is a positioned error for every scenario run whose executor lacks the setting, all at once")
    func overrideErrors() {
        let issues = Self.problems { () throws(ScenarioFileError) in try Self.parse(overrides: ScenarioOverrides(duration: .seconds(5))) }
        #expect(issues.map(\.field) == ["scenarios.burst.executor", "scenarios.ramp.executor"])
        let comment = Comment(rawValue: issues.map(\.description).joined(separator: "\n"))
        #expect(issues.allSatisfy { $0.problem.contains("--duration 5s does not apply") && $0.line != nil && $0.column != nil }, comment)
        #expect(issues.last?.problem.contains("its stages set how long it runs") == true, comment)
        let vus = Self.problems { () throws(ScenarioFileError) in try Self.parse(overrides: ScenarioOverrides(vus: 3, scenarios: ["open"])) }
        #expect(vus.map(\.field) == ["scenarios.open.executor"])
        #expect(vus.first?.problem.contains("pool") == true)
        // A scenario left out is not checked against the overrides.
        #expect(
            Self.problems { () throws(ScenarioFileError) in try Self.parse(overrides: ScenarioOverrides(iterations: 3, scenarios: ["burst"])) }
                .isEmpty)
    }

    @Test("--scenario: an unknown name is an error with a suggestion; gates on scenarios left out are noted, not evaluated")
    func selection() throws {
        let unknown = Self.problems { () throws(ScenarioFileError) in try Self.parse(overrides: ScenarioOverrides(scenarios: ["steddy"])) }
        #expect(unknown.count == 1)
        #expect(unknown.first?.problem.contains("--scenario steddy") == true && unknown.first?.fix.contains("`steady`") == true)
        let plan = try Self.parse(overrides: ScenarioOverrides(scenarios: ["steady"]))
        #expect(plan.comparisons.isEmpty && plan.thresholds.isEmpty)
        let comment = Comment(rawValue: plan.notes.joined(separator: "\n"))
        #expect(plan.notes.count == 3, comment)
        #expect(plan.notes.first?.contains("left out burst, ramp, open") == true, comment)
        let chained = Self.yaml.replacingOccurrences(of: "    iterations: 1000", with: "    iterations: 1000\n    startAfter: steady")
        let waiting = Self.problems { () throws(ScenarioFileError) in try Self.parse(chained, overrides: ScenarioOverrides(scenarios: ["burst"])) }
        #expect(waiting.map(\.field) == ["scenarios.burst.startAfter"])
    }

    @Test("${NAME} reads numbers, durations and booleans; -e wins over the environment; the report's record hides secret values")
    func variables() throws {
        let yaml = """
            version: 2
            name: ${RUN_NAME:-vars}
            target: local
            verify: ${VERIFY}
            auth: { token: "${FL_API_TOKEN}" }
            scenarios:
              steady:
                executor: constant-vus
                vus: ${VUS}
                duration: ${DURATION:-2s}
            """
        let plan = try Self.parse(
            yaml, environment: ["VUS": "9", "VERIFY": "no", "FL_API_TOKEN": "tok-123"], commandLine: ["VUS": "3"])
        #expect(plan.name == "vars" && !plan.verify && plan.auth?.token == "tok-123")
        #expect(plan.scenarios.first?.executor == .constantVUs(ConstantVUs(vus: 3, duration: .seconds(2))))
        let expected = [
            VariableUse(name: "DURATION", source: .default, value: "2s"), VariableUse(name: "FL_API_TOKEN", source: .environment, value: nil),
            VariableUse(name: "RUN_NAME", source: .default, value: "vars"), VariableUse(name: "VERIFY", source: .environment, value: "no"),
            VariableUse(name: "VUS", source: .commandLine, value: "3"),
        ]
        #expect(plan.variablesUsed.sorted { $0.name < $1.name } == expected)
    }

    @Test("an unset variable is one problem naming it at its line and column, also where a number is read")
    func unsetVariable() {
        let yaml = "version: 2\nname: v\ntarget: local\nscenarios:\n  s:\n    executor: constant-vus\n    vus: ${FL_VUS}\n    duration: ${FL_D}\n"
        let issues = Self.problems { () throws(ScenarioFileError) in try Self.parse(yaml) }
        let comment = Comment(rawValue: issues.map(\.description).joined(separator: "\n"))
        #expect(issues.count == 2, comment)
        #expect(issues.first?.description.hasPrefix("s.yaml:7:10: scenarios.s.vus: environment variable FL_VUS is not set") == true, comment)
        #expect(issues.last?.description.hasPrefix("s.yaml:8:15: scenarios.s.duration: environment variable FL_D is not set") == true, comment)
        let notNumber = Self.problems { () throws(ScenarioFileError) in try Self.parse(yaml, environment: ["FL_VUS": "many", "FL_D": "1s"]) }
        #expect(notNumber.first?.problem.contains("'${FL_VUS}' (read as 'many')") == true)
    }

    @Test("keys are never expanded, and a secret-looking variable may fill only auth")
    func keysAndSecrets() {
        let keyed = "version: 2\nname: k\ntarget: local\nscenarios:\n  ${NAME}:\n    executor: shared-iterations\n    iterations: 1\n"
        #expect((try? Self.parse(keyed, environment: ["NAME": "expanded"]))?.scenarios.map(\.name) == ["${NAME}"])
        let leaky = "version: 2\nname: ${SERVICE_KEY}\ntarget: local\nscenarios:\n  s:\n    executor: shared-iterations\n    iterations: 1\n"
        let issues = Self.problems { () throws(ScenarioFileError) in try Self.parse(leaky, environment: ["SERVICE_KEY": "k-999"]) }
        #expect(issues.map(\.field) == ["name"])
        #expect(issues.allSatisfy { !$0.description.contains("k-999") })
    }

    @Test("a variable that fills auth.password or auth.token is a secret whatever its name: its value is not recorded, shown, or given a default")
    func credentialFieldsMakeSecrets() throws {
        func yaml(auth: String, name: String = "c") -> String {
            "version: 2\nname: \(name)\ntarget: local\nauth: \(auth)\nscenarios:\n  s:\n    executor: shared-iterations\n    iterations: 1\n"
        }
        let environment = ["ARCGIS_USER": "qa", "ARCGIS_PWD": "pw-1", "ARCGIS_PASS": "pw-2", "API": "tok-3"]
        let plan = try Self.parse(yaml(auth: #"{ username: "${ARCGIS_USER}", password: "${ARCGIS_PWD}" }"#), environment: environment)
        #expect(plan.auth?.password == "pw-1")
        #expect(
            plan.variablesUsed == [
                VariableUse(name: "ARCGIS_USER", source: .environment, value: "qa"),
                VariableUse(name: "ARCGIS_PWD", source: .environment, value: nil),
            ])
        let token = try Self.parse(yaml(auth: #"{ token: "${API}" }"#), environment: environment)
        #expect(token.variablesUsed == [VariableUse(name: "API", source: .environment, value: nil)])

        // A default there is a credential in the file, whether or not the variable is set.
        for environment in [environment, [:]] {
            let defaulted = Self.problems { () throws(ScenarioFileError) in
                try Self.parse(yaml(auth: #"{ username: qa, password: "${ARCGIS_PASS:-Hunter2}" }"#), environment: environment)
            }
            #expect(defaulted.map(\.field) == ["auth.password"], "\(defaulted)")
            #expect(defaulted.first?.problem.contains("default") == true && defaulted.allSatisfy { !$0.description.contains("pw-2") })
        }
        // The same variable in a field reports show is refused there, before or after the credential, without its value.
        let after = Self.problems { () throws(ScenarioFileError) in
            try Self.parse(yaml(auth: #"{ username: qa, password: "${ARCGIS_PASS}" }"#, name: "${ARCGIS_PASS}"), environment: environment)
        }
        #expect(after.map(\.field) == ["name"] && after.first?.line == 2, "\(after)")
        let before = Self.problems { () throws(ScenarioFileError) in
            try Self.parse(
                "version: 2\nname: c\ntarget: local\nauth: { username: qa, password: \"${ARCGIS_PASS}\" }\ndescription: ${ARCGIS_PASS}\n"
                    + "scenarios:\n  s:\n    executor: shared-iterations\n    iterations: 1\n", environment: environment)
        }
        #expect(before.map(\.field) == ["description"] && before.first?.line == 5, "\(before)")
        #expect((after + before).allSatisfy { !$0.description.contains("pw-2") })
    }

    @Test("run tags go on every metric under the scenario's own")
    func runTags() throws {
        let plan = try Self.parse(tags: ["branch": "main"])
        #expect(plan.tags == ["branch": "main"])
        var spec = try #require(plan.scenarios.first)
        spec.tags = ["team": "qa", "branch": "mine"]
        #expect(plan.metricTags(of: spec) == ["team": "qa", "branch": "mine"])
        spec.tags = [:]
        #expect(plan.metricTags(of: spec) == ["branch": "main"])
    }
}
