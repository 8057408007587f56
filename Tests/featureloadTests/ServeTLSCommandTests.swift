import FeatureloadTestSupport
import Foundation
import Testing

/// `featureload serve`'s HTTPS options, through the built binary.
@Suite(.serialized) struct ServeTLSCommandTests {
    @Test("serve --help documents the TLS options and the portal", .timeLimit(.minutes(1)))
    func help() async throws {
        let help = try await Featureload.run(["serve", "--help"])
        #expect(help.status == 0)
        for word in ["--tls-cert", "--tls-key", "--tls-self-signed", "verify_cert=False", "/arcgis/sharing/rest/portals/self"] {
            #expect(help.output.contains(word), "serve --help mentions \(word)")
        }
    }

    @Test("incomplete or conflicting TLS options are usage errors naming the option", .timeLimit(.minutes(1)))
    func conflictingOptions() async throws {
        let cases: [([String], String)] = [
            (["--tls-cert", "c.pem"], "--tls-cert needs --tls-key"),
            (["--tls-key", "k.pem"], "--tls-key needs --tls-cert"),
            (["--tls-cert", "c.pem", "--tls-key", "k.pem", "--tls-self-signed"], "--tls-self-signed generates its own certificate"),
        ]
        for (arguments, message) in cases {
            let result = try await Featureload.run(["serve"] + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.errorOutput.contains(message), "\(arguments): \(result.errorOutput)")
        }
    }

    @Test(
        "off loopback, serve says what is exposed: no authentication, or cleartext passwords and tokens; the admin endpoints", .timeLimit(.minutes(1))
    )
    func exposureWarning() async throws {
        let directory = try TemporaryDirectory()
        let users = directory.path + "/users.yaml"
        try "qa: Sup3r-Secret!\n".write(toFile: users, atomically: true, encoding: .utf8)
        // The dataset is missing, so serve stops right after its warnings, before it listens.
        let open = try await Featureload.run(["serve", "--host", "0.0.0.0", "--dataset", "/nonexistent/x.json"])
        #expect(open.errorOutput.contains("no authentication") && open.errorOutput.contains("--no-admin"), "\(open.errorOutput)")
        let tokens = try await Featureload.run(["serve", "--host", "0.0.0.0", "--users", users, "--dataset", "/nonexistent/x.json"])
        #expect(!tokens.errorOutput.contains("no authentication"), "\(tokens.errorOutput)")
        #expect(tokens.errorOutput.contains("cleartext") && tokens.errorOutput.contains("/arcgis/admin/faults"), "\(tokens.errorOutput)")
        let quiet = try await Featureload.run([
            "serve", "--host", "0.0.0.0", "--users", users, "--tls-self-signed", "--no-admin", "--dataset", "/nonexistent/x.json",
        ])
        #expect(!quiet.errorOutput.contains("cleartext") && !quiet.errorOutput.contains("admin endpoints"), "\(quiet.errorOutput)")
    }

    @Test("an unreadable certificate stops serve before it listens, naming the file", .timeLimit(.minutes(1)))
    func unreadableCertificate() async throws {
        let result = try await Featureload.run(["serve", "--tls-cert", "/nonexistent/featureload.pem", "--tls-key", "/nonexistent/featureload.key"])
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("cannot set up HTTPS: cannot read the certificate /nonexistent/featureload.pem"), "\(result.errorOutput)")
        #expect(!result.output.contains("listening on"))
    }
}
