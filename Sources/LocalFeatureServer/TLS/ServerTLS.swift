import Foundation
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdTLS
import NIOCore
import NIOSSL

/// The HTTPS side of a server run: the loaded certificate and key, and the temporary directory of a generated
/// self-signed certificate.
///
/// Made once at start-up (before the listener binds), so a missing file or a missing `openssl` is reported as a
/// ``LocalFeatureServerError`` instead of failing every connection later.
struct ServerTLS: Sendable {
    /// Server-side TLS settings: the certificate chain and key, the ALPN protocols offered, NIOSSL's defaults
    /// otherwise (TLS 1.2+, no client certificates).
    let configuration: TLSConfiguration
    /// The listener's channel setup inside TLS: HTTP/2 or HTTP/1.1 as ALPN decides (``listenerProtocols``), or
    /// HTTP/1.1 only.
    let serverBuilder: HTTPServerBuilder
    /// The PEM certificate presented (a client can trust it with e.g. `curl --cacert`).
    let certificatePath: String
    /// The directory of a generated certificate, removed by ``removeTemporaryFiles()``; nil for configured files.
    let temporaryDirectory: URL?

    /// Loads (or generates, then loads) the certificate and key `settings` name.
    /// - Parameters:
    ///   - host: The listening address, added to a generated certificate's subject alternative names.
    /// - Throws: ``LocalFeatureServerError`` (`isTLSFailure`) naming the file and NIOSSL's reason, or saying that the
    ///   `openssl` command is missing or failed.
    static func prepare(_ settings: LocalFeatureServerConfiguration.TLS, host: String, idleTimeout: Duration) throws -> ServerTLS {
        switch settings.certificate {
        case .files(let certificatePath, let privateKeyPath):
            return try load(
                certificatePath: certificatePath, privateKeyPath: privateKeyPath, offersHTTP2: settings.offersHTTP2, temporaryDirectory: nil,
                idleTimeout: idleTimeout)
        case .selfSigned:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-tls-\(UUID().uuidString)")
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                let paths = try SelfSignedCertificate.generate(in: directory, host: host)
                return try load(
                    certificatePath: paths.certificate, privateKeyPath: paths.privateKey, offersHTTP2: settings.offersHTTP2,
                    temporaryDirectory: directory, idleTimeout: idleTimeout)
            } catch {
                try? FileManager.default.removeItem(at: directory)
                if let error = error as? LocalFeatureServerError { throw error }
                throw LocalFeatureServerError.tls("cannot create \(directory.path): \(error)")
            }
        }
    }

    /// Deletes a generated certificate and key; nothing for configured files.
    func removeTemporaryFiles() {
        if let temporaryDirectory { try? FileManager.default.removeItem(at: temporaryDirectory) }
    }

    /// The ALPN protocols the listener offers, most preferred first. Pure.
    ///
    /// A client that sends no ALPN (or only `http/1.1`) gets HTTP/1.1, so HTTP/1.1-only clients such as the ArcGIS API
    /// for Python keep working next to multiplexing ones.
    static func listenerProtocols(offersHTTP2: Bool) -> [String] {
        offersHTTP2 ? ["h2", "http/1.1"] : []
    }

    private static func load(
        certificatePath: String, privateKeyPath: String, offersHTTP2: Bool, temporaryDirectory: URL?, idleTimeout: Duration
    ) throws -> ServerTLS {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw LocalFeatureServerError.tls("cannot read the certificate \(certificatePath) (a PEM file is expected): \(error)")
        }
        guard !chain.isEmpty else {
            throw LocalFeatureServerError.tls("the certificate file \(certificatePath) holds no PEM certificate")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: privateKeyPath, format: .pem)
        } catch {
            throw LocalFeatureServerError.tls(
                "cannot read the private key \(privateKeyPath) (an unencrypted PEM key is expected): \(error)"
            )
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.applicationProtocols = listenerProtocols(offersHTTP2: offersHTTP2)
        let builder: HTTPServerBuilder
        do {
            // Building a context once checks that the key belongs to the certificate (else every handshake would fail).
            _ = try NIOSSLContext(configuration: configuration)
            // The HTTP/2 builder sets the ALPN list itself (h2, then http/1.1) and runs the same responder (router and
            // middleware) for each HTTP/2 stream as for an HTTP/1.1 request. Each stream ends its response on the last
            // DATA frame, so that clients do not reset answered streams into the rapid-reset limit.
            let http1 = HTTP1Channel.Configuration(idleTimeout: TimeAmount(idleTimeout))
            let streams = HTTP1Channel.Configuration(
                additionalChannelHandlers: [HTTP2EndStreamCoalescerInstaller()], idleTimeout: TimeAmount(idleTimeout))
            builder =
                offersHTTP2
                ? try .http2Upgrade(
                    tlsConfiguration: configuration, configuration: HTTP2ChannelConfiguration(idleTimeout: idleTimeout, streamConfiguration: streams))
                : try .tls(.http1(configuration: http1), tlsConfiguration: configuration)
        } catch {
            throw LocalFeatureServerError.tls("the certificate \(certificatePath) and key \(privateKeyPath) cannot be used: \(error)")
        }
        return ServerTLS(
            configuration: configuration,
            serverBuilder: builder,
            certificatePath: certificatePath,
            temporaryDirectory: temporaryDirectory
        )
    }
}
