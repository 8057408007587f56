import Foundation

/// Generates a self-signed certificate for the HTTPS listener with the `openssl` command.
///
/// Why `openssl` rather than swift-certificates and swift-crypto: they would add about 1–1.5 minutes to every clean
/// build for a development convenience, while `openssl` ships with macOS and practically every Linux image (and
/// whoever lacks it can pass their own PEM files). The command is found through `PATH` and run by
/// ``ChildProcess``.
enum SelfSignedCertificate {
    /// Days the generated certificate is valid.
    static let validityDays = 30

    /// The `openssl req` arguments that write an EC P-256 key and a certificate for `localhost`, `127.0.0.1`,
    /// `::1` and `host` into `directory`. Pure.
    static func arguments(certificatePath: String, privateKeyPath: String, host: String) -> [String] {
        var names = ["DNS:localhost", "IP:127.0.0.1", "IP:0:0:0:0:0:0:0:1"]
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let isAddress = bare.contains(":") || (!bare.isEmpty && bare.allSatisfy { $0.isNumber || $0 == "." })
        let extra = (isAddress ? "IP:" : "DNS:") + bare
        if !bare.isEmpty, bare != "0.0.0.0", bare != "::", !names.contains(extra), !(isAddress && bare == "::1") {
            names.append(extra)
        }
        return [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", privateKeyPath, "-out", certificatePath, "-days", String(validityDays),
            "-subj", "/CN=localhost/O=featureload", "-addext", "subjectAltName=" + names.joined(separator: ","),
        ]
    }

    /// Writes `certificate.pem` and `key.pem` into `directory`.
    /// - Returns: Their paths.
    /// - Throws: ``LocalFeatureServerError`` (`isTLSFailure`) when `openssl` cannot be started or fails (with its
    ///   standard error).
    static func generate(in directory: URL, host: String) throws -> (certificate: String, privateKey: String) {
        let certificate = directory.appendingPathComponent("certificate.pem").path
        let privateKey = directory.appendingPathComponent("key.pem").path
        let result: ChildProcess.Result
        do {
            result = try ChildProcess.run(arguments(certificatePath: certificate, privateKeyPath: privateKey, host: host))
        } catch {
            throw LocalFeatureServerError.tls("\(error) to make a self-signed certificate; install openssl or pass --tls-cert and --tls-key")
        }
        guard result.status == 0, FileManager.default.fileExists(atPath: certificate) else {
            let reason = String(decoding: result.errors, as: UTF8.self).split(separator: "\n").prefix(3).joined(separator: "; ")
            throw LocalFeatureServerError.tls(
                "openssl exited with status \(result.status) while making a self-signed certificate: \(reason); install openssl or pass --tls-cert and --tls-key"
            )
        }
        return (certificate, privateKey)
    }
}
