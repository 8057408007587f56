import FeatureloadTestSupport
import Foundation
import LoadRunner
import LocalFeatureServer
import Logging
import Testing

/// `featureload run` against a live-style target: an HTTPS service with token security (the local service with a
/// self-signed certificate and `--users`), reached by URL with `--ca-file` and credentials from the environment.
@Suite(.serialized) struct LiveTargetTests {
    static let scenario = """
        version: 2
        name: live
        target: https://example.invalid/arcgis/rest/services/parks/FeatureServer
        seed: 4
        scenarios:
          adds:
            executor: shared-iterations
            vus: 2
            iterations: 20
            exec: applyEdits
            adds: 2
        thresholds:
          edits: ["count==40"]
        """

    /// Writes the scenario into `directory` and returns its path.
    static func writeScenario(in directory: String) throws -> String {
        let file = directory + "/live.yaml"
        try scenario.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    static func withSecuredServer<T: Sendable>(_ body: @Sendable (LocalFeatureServerEndpoint, String) async throws -> T) async throws -> T {
        var configuration = LocalFeatureServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.tls = .init(certificate: .selfSigned)
        configuration.auth.users = UserDirectory(["qa": "s3cret-Passw0rd"])
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        return try await withLocalFeatureServer(configuration, logger: logger) { endpoint in
            try await body(endpoint, try #require(endpoint.certificatePath))
        }
    }

    @Test("https with --ca-file and generateToken from the environment: the run passes, and no secret is written anywhere", .timeLimit(.minutes(2)))
    func securedTarget() async throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.path
        let file = try Self.writeScenario(in: directory)
        try await Self.withSecuredServer { endpoint, certificate in
            let url = endpoint.serviceURL("parks")
            let result = try await Featureload.run(
                [
                    "run", file, "--target", url, "--ca-file", certificate, "--username-env", "FL_USER", "--password-env", "FL_PASS", "--out",
                    directory + "/out",
                ],
                environment: ["FL_USER": "qa", "FL_PASS": "s3cret-Passw0rd"])
            #expect(result.status == 0, "\(result.output) \(result.errorOutput)")
            let report = try CommandLineTests.report(in: directory + "/out", output: result.output)
            #expect(report.target.kind == "live")
            #expect(report.views.first?.editsApplied == 40)
            #expect(report.views.first?.record.verification?.passed == true)
            #expect(report.target.notes.contains { $0.contains("generated tokens") })
            let folder = try CommandLineTests.folder(from: result.output)
            for name in ["report.json", "report.md"] {
                let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
                #expect(!text.contains("s3cret-Passw0rd"), "\(name) holds the password")
            }
            #expect(!result.output.contains("s3cret-Passw0rd") && !result.errorOutput.contains("s3cret-Passw0rd"))

            // Without the CA the certificate is refused, with a message that says what to do; without credentials, 499.
            let untrusted = try await Featureload.run(
                ["run", file, "--target", url, "--username-env", "FL_USER", "--password-env", "FL_PASS", "--out", directory + "/out2"],
                environment: ["FL_USER": "qa", "FL_PASS": "s3cret-Passw0rd"])
            #expect(untrusted.status == 2)
            #expect(untrusted.errorOutput.lowercased().contains("certificate"), "\(untrusted.errorOutput)")
            let anonymous = try await Featureload.run(["run", file, "--target", url, "--ca-file", certificate, "--out", directory + "/out3"])
            #expect(anonymous.status == 2)
            #expect(anonymous.errorOutput.contains("499") || anonymous.errorOutput.lowercased().contains("token"), "\(anonymous.errorOutput)")
        }
    }

    @Test("--insecure reaches a self-signed server with a warning; a wrong token stops the run without echoing it", .timeLimit(.minutes(2)))
    func insecure() async throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.path
        let file = try Self.writeScenario(in: directory)
        try await Self.withSecuredServer { endpoint, _ in
            let result = try await Featureload.run(
                ["run", file, "--target", endpoint.serviceURL("parks"), "--insecure", "--token-env", "FL_TOKEN", "--quiet", "--out", directory],
                environment: ["FL_TOKEN": "not-a-valid-token"])
            #expect(result.errorOutput.contains("warning: TLS certificates are not verified (--insecure)"), "\(result.errorOutput)")
            // The token is wrong: the service answers 498, so the run cannot start, and the token is not echoed. The
            // failure is the token's, not the certificate's: the server was reached.
            #expect(result.status == 2)
            #expect(result.errorOutput.contains("498") || result.errorOutput.contains("token is invalid"), "\(result.errorOutput)")
            #expect(!result.errorOutput.lowercased().contains("certificate problem"), "\(result.errorOutput)")
            #expect(!result.errorOutput.contains("not-a-valid-token"))
            // With good credentials the same self-signed server is used for the whole run.
            let signedIn = try await Featureload.run(
                [
                    "run", file, "--target", endpoint.serviceURL("parks"), "--insecure", "--username-env", "FL_USER", "--password-env", "FL_PASS",
                    "--quiet", "--out", directory + "/signed-in",
                ],
                environment: ["FL_USER": "qa", "FL_PASS": "s3cret-Passw0rd"])
            #expect(signedIn.status == 0, "\(signedIn.output) \(signedIn.errorOutput)")
        }
    }

    @Test("a scenario of 800 applyEdits over https and HTTP/2 ends with no failed edit and no retry", .timeLimit(.minutes(5)))
    func http2Scenario() async throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.path
        // Far past the 200 streams after which a connection used to be closed (one request in 202 failed).
        let file = directory + "/h2.yaml"
        try Self.scenario.replacingOccurrences(
            of: "vus: 2\n    iterations: 20\n    exec: applyEdits\n    adds: 2",
            with: "vus: 4\n    iterations: 800\n    exec: applyEdits\n    adds: 1"
        )
        .replacingOccurrences(of: "count==40", with: "count==800")
        .write(toFile: file, atomically: true, encoding: .utf8)
        try await Self.withSecuredServer { endpoint, certificate in
            let result = try await Featureload.run(
                [
                    "run", file, "--target", endpoint.serviceURL("parks"), "--ca-file", certificate, "--username-env", "FL_USER", "--password-env",
                    "FL_PASS", "--quiet", "--out", directory + "/out",
                ],
                environment: ["FL_USER": "qa", "FL_PASS": "s3cret-Passw0rd"])
            #expect(result.status == 0, "\(result.output) \(result.errorOutput)")
            let view = try #require(try CommandLineTests.report(in: directory + "/out", output: result.output).views.first)
            #expect(view.requests == 800 && view.editsApplied == 800, "\(view.requests) requests, \(view.editsApplied) edits")
            #expect(
                view.editsFailed == 0 && view.failedRequests == 0 && view.retries == 0,
                "\(view.editsFailed) edits and \(view.failedRequests) requests failed, \(view.retries) retries")
        }
    }
}
