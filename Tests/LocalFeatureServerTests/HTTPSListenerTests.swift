import FeatureModel
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Testing

@testable import LocalFeatureServer

/// The HTTPS listener: configured PEM files and a generated self-signed certificate, checked by a TLS client that
/// verifies the server against that certificate (libcurl's transport has no setting to trust one).
@Suite struct HTTPSListenerTests {
    /// One `GET path` over TLS to 127.0.0.1:`port`, verifying the server as `localhost` against `certificatePath`.
    /// - Returns: The raw HTTP response (status line, headers, body).
    static func get(port: Int, path: String, trusting certificatePath: String) async throws -> String {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificatePath))
        let context = try NIOSSLContext(configuration: configuration)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: "localhost"))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"))
            var text = ""
            do {
                for try await chunk in inbound { text += String(buffer: chunk) }
            } catch NIOSSLError.uncleanShutdown {
                // The answer is complete; the server closed without close_notify.
            }
            return text
        }
    }

    /// The JSON body of a raw HTTP response.
    static func body(_ response: String) -> String {
        guard let range = response.range(of: "\r\n\r\n") else { return "" }
        return String(response[range.upperBound...])
    }

    @Test("a self-signed server answers the portal and the services over HTTPS, then deletes its certificate", .timeLimit(.minutes(1)))
    func selfSigned() async throws {
        let certificate = try await withConfiguredServer({ $0.tls = .init(certificate: .selfSigned) }) { endpoint in
            #expect(endpoint.scheme == "https")
            #expect(endpoint.rootURL.hasPrefix("https://127.0.0.1:"))
            let path = try #require(endpoint.certificatePath)
            #expect(FileManager.default.fileExists(atPath: path))
            let portal = try await Self.get(port: endpoint.port, path: "/arcgis/sharing/rest/portals/self?f=json", trusting: path)
            #expect(portal.hasPrefix("HTTP/1.1 200"))
            #expect(portal.lowercased().contains("content-type: application/json"))
            let document = try JSONReader.parse(Self.body(portal))
            guard case .object(let members) = document else { throw ServiceErrorProbe.notAnObject }
            #expect(members["portalName"] == .string("featureload"))
            let count = try await Self.get(
                port: endpoint.port,
                path: "/arcgis/rest/services/parks/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json",
                trusting: path
            )
            #expect(Self.body(count) == #"{"count":12}"#)
            return path
        }
        #expect(!FileManager.default.fileExists(atPath: certificate))
    }

    @Test("configured PEM files are served and kept", .timeLimit(.minutes(1)))
    func configuredFiles() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-tls-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try SelfSignedCertificate.generate(in: directory, host: "127.0.0.1")
        try await withConfiguredServer({ $0.tls = .init(certificate: .files(certificatePath: files.certificate, privateKeyPath: files.privateKey)) })
        {
            endpoint in
            #expect(endpoint.certificatePath == files.certificate)
            let root = try await Self.get(port: endpoint.port, path: "/arcgis/sharing/rest?f=json", trusting: files.certificate)
            #expect(Self.body(root) == #"{"currentVersion":"2023.1"}"#)
        }
        #expect(FileManager.default.fileExists(atPath: files.certificate))
        #expect(FileManager.default.fileExists(atPath: files.privateKey))
    }

    @Test("a missing file or a key of another certificate stops the start with a TLS error naming the file", .timeLimit(.minutes(1)))
    func badFiles() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-tls-test-\(UUID().uuidString)")
        let other = directory.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try SelfSignedCertificate.generate(in: directory, host: "127.0.0.1")
        let second = try SelfSignedCertificate.generate(in: other, host: "127.0.0.1")
        let cases: [(String, String, String)] = [
            (directory.appendingPathComponent("missing.pem").path, first.privateKey, "missing.pem"),
            (first.certificate, directory.appendingPathComponent("nokey.pem").path, "nokey.pem"),
            (first.certificate, second.privateKey, first.certificate),
            (first.privateKey, first.privateKey, first.privateKey),
        ]
        for (certificate, key, named) in cases {
            do {
                try await withConfiguredServer({ $0.tls = .init(certificate: .files(certificatePath: certificate, privateKeyPath: key)) }) { _ in
                    Issue.record("the server started with \(certificate) and \(key)")
                }
            } catch let error as LocalFeatureServerError {
                #expect(error.isTLSFailure)
                #expect(error.description.contains(named), "\(error)")
            }
        }
    }

    @Test("the generated certificate names localhost, the loopback addresses and a configured host")
    func subjectAlternativeNames() {
        func names(_ host: String) -> String {
            let arguments = SelfSignedCertificate.arguments(certificatePath: "c", privateKeyPath: "k", host: host)
            return arguments.first { $0.hasPrefix("subjectAltName=") } ?? ""
        }
        #expect(names("127.0.0.1") == "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:0:0:0:0:0:0:0:1")
        #expect(names("0.0.0.0") == "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:0:0:0:0:0:0:0:1")
        #expect(names("10.1.2.3").hasSuffix(",IP:10.1.2.3"))
        #expect(names("devbox.local").hasSuffix(",DNS:devbox.local"))
        #expect(names("[fe80::1]").hasSuffix(",IP:fe80::1"))
    }
}

private enum ServiceErrorProbe: Error {
    case notAnObject
}
