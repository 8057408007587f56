import FeatureloadTestSupport
import Foundation
import Testing

/// A password is known by the field it fills: through the built binary against a token-secured `serve`, whatever
/// variable fills `auth.password` appears in no output of run, apply, verify, serve, compare or report.
@Suite(.serialized) struct SecretOutputTests {
    static let password = "Hunter2-pw-XYZ"

    @Test(
        "a password from ${ARCGIS_PASS} (a name that does not look secret) is in no output of run, apply, verify, serve, compare or report",
        .timeLimit(.minutes(3)))
    func passwordInNoOutput() async throws {
        let directory = try TemporaryDirectory()
        let users = directory.path + "/users.yaml"
        try "users:\n  - username: qa\n    password: \(Self.password)\n".write(toFile: users, atomically: true, encoding: .utf8)
        let serve = try BackgroundCommand(["serve", "--port", "0", "--users", users, "--data", directory.path + "/served.sqlite"])
        defer { serve.stop() }
        let started = serve.read { $0.contains("listening on ") }
        let service = try #require(
            BackgroundCommand.serviceURL(in: started),
            Comment(rawValue: started + serve.errorOutput))
        let environment = ["ARCGIS_USER": "qa", "ARCGIS_PASS": Self.password]
        var outputs: [(String, String)] = []

        let scenario = directory.path + "/secured.yaml"
        try """
        version: 2
        name: secured
        target: \(service)
        auth: { username: "${ARCGIS_USER}", password: "${ARCGIS_PASS}" }
        scenarios:
          adds:
            executor: shared-iterations
            vus: 2
            iterations: 10
            exec: applyEdits
            adds: 2
        """.write(toFile: scenario, atomically: true, encoding: .utf8)
        let run = try await Featureload.run(
            ["run", scenario, "--out", directory.path + "/out", "--out", "csv=" + directory.path + "/samples.csv"], environment: environment)
        #expect(run.status == 0, "\(run.output)\n\(run.errorOutput)")
        #expect(run.output.contains("ARCGIS_PASS (environment, secret: value not shown)"), "\(run.output)")
        #expect(run.output.contains("ARCGIS_USER=qa"), "the user name is no secret: \(run.output)")
        outputs.append(("run", run.output + run.errorOutput))
        let validate = try await Featureload.run(["validate", scenario], environment: environment)
        outputs.append(("validate", validate.output + validate.errorOutput))

        let report = try CommandLineTests.folder(from: run.output) + "/report.json"
        let compare = try await Featureload.run(["compare", report, report, "-o", directory.path + "/compare.md"])
        outputs.append(("compare", compare.output + compare.errorOutput))
        let rendered = try await Featureload.run(["report", report, "--format", "md", "-o", directory.path + "/rendered.md"])
        outputs.append(("report", rendered.output + rendered.errorOutput))

        let input = directory.path + "/parks.geojson"
        try ApplyCommandTests.geojson(20).write(toFile: input, atomically: true, encoding: .utf8)
        let journal = directory.path + "/parks.journal"
        let apply = try await Featureload.run(
            [
                "apply", input, "--to", service, "--layer", "0", "--username-env", "ARCGIS_USER", "--password-env", "ARCGIS_PASS", "--journal",
                journal, "--report", directory.path + "/apply.json",
            ],
            environment: environment)
        #expect(apply.status == 0, "\(apply.output)\n\(apply.errorOutput)")
        outputs.append(("apply", apply.output + apply.errorOutput))
        let verify = try await Featureload.run(["verify", journal], environment: environment)
        #expect(verify.status == 0, "\(verify.output)\n\(verify.errorOutput)")
        outputs.append(("verify", verify.output + verify.errorOutput))

        serve.stop()
        outputs.append(("serve", serve.read { _ in true } + serve.errorOutput))
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory.path).filter { $0 != "users.yaml" }
        for file in files {
            guard let data = FileManager.default.contents(atPath: directory.path + "/" + file) else { continue }
            outputs.append((file, String(decoding: data, as: UTF8.self)))
        }
        #expect(files.contains { $0.hasSuffix("report.html") } && files.contains("apply.json") && files.contains("samples.csv"), "\(files)")
        for (name, text) in outputs {
            #expect(!text.contains(Self.password), "\(name) shows the password")
        }
    }
}
