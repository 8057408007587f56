import FeatureloadTestSupport
import Foundation
import LoadRunner
import Testing

/// End-to-end: k6's command-line habits on `run` and `validate` (overrides, `--scenario`, `${NAME}` and `-e`, `--tag`),
/// through the built binary against the embedded service.
@Suite(.serialized) struct RunOverrideCommandTests {
    static let shapes = """
        version: 2
        name: shapes
        target: local
        verify: false
        scenarios:
          steady:
            executor: constant-vus
            vus: 4
            duration: 30s
            exec: query
            returnCountOnly: true
          burst:
            executor: shared-iterations
            vus: 4
            iterations: 100000
            exec: query
            returnCountOnly: true
          ramp:
            executor: ramping-vus
            stages: [{ duration: 30s, target: 2 }]
            exec: query
            returnCountOnly: true
        """

    static func write(_ yaml: String, named name: String, in directory: TemporaryDirectory) throws -> String {
        let file = directory.path + "/\(name).yaml"
        try yaml.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test("--vus, --duration and --scenario change the run, and report.json, report.md and compare say so", .timeLimit(.minutes(3)))
    func overridesRecorded() async throws {
        let directory = try TemporaryDirectory()
        let file = try Self.write(Self.shapes, named: "shapes", in: directory)
        let changed = try await Featureload.run([
            "run", file, "--vus", "2", "--duration", "1s", "--scenario", "steady", "--quiet", "--out", directory.path + "/a",
        ])
        let comment1 = Comment(rawValue: "\(changed.output)\(changed.errorOutput)")
        #expect(changed.status == 0, comment1)
        let report = try CommandLineTests.report(in: directory.path + "/a", output: changed.output)
        #expect(report.scenarios.map(\.name) == ["steady"])
        #expect(report.scenarios.first?.settings["vus"] == "2")
        #expect(report.scenarios.first?.settings["duration"] == "1s")
        #expect(report.overrides == ScenarioOverrides(vus: 2, duration: .seconds(1), scenarios: ["steady"]))
        #expect(report.notes.contains { $0.contains("left out burst, ramp") })
        let folder = try CommandLineTests.folder(from: changed.output)
        let markdown = try String(contentsOfFile: folder + "/report.md", encoding: .utf8)
        let comment = Comment(rawValue: String(markdown.prefix(1200)))
        #expect(markdown.contains("| overrides | --vus 2 --duration 1s --scenario steady (not the file as written) |"), comment)

        let rendered = try await Featureload.run(["report", folder + "/report.json", "--format", "md"])
        #expect(rendered.output.contains("| overrides | --vus 2 --duration 1s --scenario steady (not the file as written) |"), comment)

        let asWritten = try await Featureload.run([
            "run", file, "--duration", "1s", "--scenario", "steady", "--quiet", "--out", directory.path + "/b",
        ])
        let comment2 = Comment(rawValue: "\(asWritten.output)\(asWritten.errorOutput)")
        #expect(asWritten.status == 0, comment2)
        let other = try CommandLineTests.folder(from: asWritten.output) + "/report.json"
        let compare = try await Featureload.run(["compare", other, folder + "/report.json"])
        let comment3 = Comment(rawValue: "\(compare.output)")
        #expect(
            compare.output.contains("overrides differ: baseline --duration 1s --scenario steady, candidate --vus 2 --duration 1s --scenario steady"),
            comment3)
        let same = try await Featureload.run(["compare", other, other])
        let comment4 = Comment(rawValue: "\(same.output)")
        #expect(!same.output.contains("not run alike"), comment4)
    }

    @Test("an override an executor does not take is a named error, for every scenario at once, from run and validate", .timeLimit(.minutes(1)))
    func overrideRefused() async throws {
        let directory = try TemporaryDirectory()
        let file = try Self.write(Self.shapes, named: "shapes", in: directory)
        for command in [["validate", file, "--duration", "5s"], ["run", file, "--duration", "5s", "--out", directory.path + "/out"]] {
            let result = try await Featureload.run(command)
            let comment5 = Comment(rawValue: "\(command[0]): \(result.errorOutput)")
            #expect(result.status == 2, comment5)
            let errors = Comment(rawValue: result.errorOutput)
            let burst = "\(file):13:15: scenarios.burst.executor: --duration 5s does not apply to executor shared-iterations"
            let ramp = "\(file):19:15: scenarios.ramp.executor: --duration 5s does not apply to executor ramping-vus"
            #expect(result.errorOutput.contains(burst), errors)
            #expect(result.errorOutput.contains(ramp), errors)
        }
        let unknown = try await Featureload.run(["validate", file, "--scenario", "steddy"])
        let comment8 = Comment(rawValue: "\(unknown.errorOutput)")
        #expect(
            unknown.status == 2 && unknown.errorOutput.contains("--scenario steddy") && unknown.errorOutput.contains("did you mean `steady`"),
            comment8)
        let selected = try await Featureload.run(["validate", file, "--duration", "5s", "--scenario", "steady"])
        let comment9 = Comment(rawValue: "\(selected.errorOutput)")
        #expect(selected.status == 0, comment9)
        let badValue = try await Featureload.run(["run", file, "--vus", "0"])
        let comment10 = Comment(rawValue: "\(badValue.errorOutput)")
        #expect(badValue.status == 64 && badValue.errorOutput.contains("--vus"), comment10)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/out"))
    }

    @Test("--generators passes the overrides, tags and -e values to every generator; the merged report keeps them", .timeLimit(.minutes(2)))
    func generators() async throws {
        let directory = try TemporaryDirectory()
        let file = try Self.write(Self.variables, named: "vars", in: directory)
        let result = try await Featureload.run(
            ["run", file, "--generators", "2", "-e", "FL_VUS=4", "--duration", "1s", "--tag", "env=ci", "--quiet", "--out", directory.path + "/out"],
            environment: ["FL_API_TOKEN": "t"])
        let output = Comment(rawValue: result.output + result.errorOutput)
        #expect(result.status == 0, output)
        let report = try CommandLineTests.report(in: directory.path + "/out", output: result.output)
        #expect(report.overrides == ScenarioOverrides(duration: .seconds(1)))
        #expect(report.tags == ["env": "ci"])
        #expect(report.variables?.contains { $0.name == "FL_VUS" && $0.value == "4" } == true)
        #expect(report.scenarios.first?.settings["duration"] == "1s")
    }

    static let variables = """
        version: 2
        name: vars
        target: local
        verify: false
        auth: { token: "${FL_API_TOKEN}" }
        scenarios:
          counts:
            executor: constant-vus
            vus: ${FL_VUS}
            duration: ${FL_DURATION:-1s}
            exec: query
            returnCountOnly: true
        """

    @Test("an unset variable fails validate and run with its name and file:line:col; -e sets it", .timeLimit(.minutes(1)))
    func unsetVariable() async throws {
        let directory = try TemporaryDirectory()
        let file = try Self.write(Self.variables, named: "vars", in: directory)
        for command in [["validate", file], ["run", file, "--out", directory.path + "/out"]] {
            let result = try await Featureload.run(command, environment: ["FL_API_TOKEN": "t"])
            let comment11 = Comment(rawValue: "\(command[0]): \(result.errorOutput)")
            #expect(result.status == 2, comment11)
            let errors = Comment(rawValue: result.errorOutput)
            let expected = "\(file):9:10: scenarios.counts.vus: environment variable FL_VUS is not set"
            #expect(result.errorOutput.contains(expected), errors)
            #expect(!result.errorOutput.contains("expected a whole number"), errors)
        }
        let given = try await Featureload.run(["validate", file, "-e", "FL_VUS=2"], environment: ["FL_API_TOKEN": "t"])
        let comment14 = Comment(rawValue: "\(given.errorOutput)")
        #expect(given.status == 0, comment14)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/out"))
    }

    @Test("a secret-looking variable's value is in no file the run wrote nor its output; --tag is in report.json and JUnit", .timeLimit(.minutes(2)))
    func secretsAndTags() async throws {
        let directory = try TemporaryDirectory()
        let file = try Self.write(Self.variables, named: "vars", in: directory)
        let secret = "tok-Zq81-never-written"
        let result = try await Featureload.run(
            ["run", file, "-e", "FL_VUS=2", "--tag", "branch=feature-x", "--tag", "env=ci", "--out", directory.path + "/out"],
            environment: ["FL_API_TOKEN": secret])
        let comment15 = Comment(rawValue: "\(result.output)\(result.errorOutput)")
        #expect(result.status == 0, comment15)
        #expect(!result.output.contains(secret) && !result.errorOutput.contains(secret))
        let written = try FileManager.default.subpathsOfDirectory(atPath: directory.path + "/out")
        let comment16 = Comment(rawValue: "\(written)")
        #expect(written.count >= 3, comment16)
        for path in written {
            let data = FileManager.default.contents(atPath: directory.path + "/out/" + path) ?? Data()
            let comment17 = Comment(rawValue: "\(path) holds the secret")
            #expect(!String(decoding: data, as: UTF8.self).contains(secret), comment17)
        }

        let report = try CommandLineTests.report(in: directory.path + "/out", output: result.output)
        let variables = try #require(report.variables)
        #expect(variables.contains(VariableUse(name: "FL_API_TOKEN", source: .environment, value: nil)))
        #expect(variables.contains(VariableUse(name: "FL_VUS", source: .commandLine, value: "2")))
        #expect(variables.contains(VariableUse(name: "FL_DURATION", source: .default, value: "1s")))
        #expect(report.tags == ["branch": "feature-x", "env": "ci"])
        #expect(!report.metrics.isEmpty && report.metrics.allSatisfy { $0.tags["branch"] == "feature-x" && $0.tags["env"] == "ci" })
        let junit = try String(contentsOfFile: try CommandLineTests.folder(from: result.output) + "/report.junit.xml", encoding: .utf8)
        let comment18 = Comment(rawValue: "\(junit)")
        #expect(junit.contains("<properties>"), comment18)
        let comment19 = Comment(rawValue: "\(junit)")
        #expect(junit.contains(#"<property name="branch" value="feature-x"/>"#) && junit.contains(#"<property name="env" value="ci"/>"#), comment19)

        let reserved = try await Featureload.run(["run", file, "--tag", "scenario=x", "-e", "FL_VUS=1"], environment: ["FL_API_TOKEN": secret])
        let comment20 = Comment(rawValue: "\(reserved.errorOutput)")
        #expect(reserved.status == 64 && reserved.errorOutput.contains("--tag scenario"), comment20)
        // Names that would break a scrape (le, __name__) or be dropped from /metrics (run_id, generator, also as run-id).
        for (tag, says) in [
            ("le=1", "le is a label"), ("__name__=x", "begins with __"), ("run-id=x", "run-id (the label run_id)"),
            ("generator=g", "generator is a label"),
        ] {
            let refused = try await Featureload.run(["run", file, "--tag", tag, "-e", "FL_VUS=1"], environment: ["FL_API_TOKEN": secret])
            #expect(refused.status == 64 && refused.errorOutput.contains(says), "\(tag): \(refused.errorOutput)")
        }
    }
}
