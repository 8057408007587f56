import ArgumentParser
import LocalFeatureServer

extension ServeCommand {
    /// Checks that the TLS options are one complete choice: `--tls-cert` with `--tls-key`, or `--tls-self-signed`.
    /// - Throws: `ValidationError` naming the missing or conflicting option.
    func validateTLSOptions() throws {
        switch (tlsCert, tlsKey) {
        case (.some, nil): throw ValidationError("--tls-cert needs --tls-key (the certificate's PEM private key)")
        case (nil, .some): throw ValidationError("--tls-key needs --tls-cert (the PEM certificate)")
        case (.some, .some) where tlsSelfSigned:
            throw ValidationError("--tls-self-signed generates its own certificate; drop it or drop --tls-cert and --tls-key")
        default: break
        }
    }

    /// The HTTPS settings the options ask for; nil for plain HTTP.
    var tlsSettings: LocalFeatureServerConfiguration.TLS? {
        if let tlsCert, let tlsKey {
            return LocalFeatureServerConfiguration.TLS(certificate: .files(certificatePath: tlsCert, privateKeyPath: tlsKey))
        }
        return tlsSelfSigned ? LocalFeatureServerConfiguration.TLS(certificate: .selfSigned) : nil
    }

    /// The standard-error lines of an HTTPS server: the portal URL for the ArcGIS API for Python, and the generated
    /// certificate's path. Empty over HTTP.
    static func tlsNotice(_ endpoint: LocalFeatureServerEndpoint, generated: Bool) -> String {
        guard endpoint.scheme == "https" else { return "" }
        var text = "featureload serve: portal at \(endpoint.siteURL) (ArcGIS API for Python: GIS(\"\(endpoint.siteURL)\", verify_cert=False))\n"
        if generated, let path = endpoint.certificatePath {
            text += "featureload serve: self-signed certificate in \(path) (temporary)\n"
        }
        return text
    }
}
