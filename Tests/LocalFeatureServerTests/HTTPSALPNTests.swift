import FeatureModel
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import Testing

@testable import LocalFeatureServer

/// ALPN on the HTTPS listener: `h2` and `http/1.1` offered by default, HTTP/1.1 only when HTTP/2 is turned off,
/// checked by a TLS client that reports the protocol the handshake agreed on.
@Suite struct HTTPSALPNTests {
    /// Passes on the protocol of the completed handshake (nil when ALPN agreed on none).
    final class NegotiatedProtocol: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let promise: EventLoopPromise<String?>

        init(_ promise: EventLoopPromise<String?>) { self.promise = promise }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? TLSUserEvent, case .handshakeCompleted(let negotiated) = event {
                promise.succeed(negotiated)
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.fail(error)
            context.fireErrorCaught(error)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(ChannelError.ioOnClosedChannel)
            context.fireChannelInactive()
        }
    }

    /// A TLS handshake with 127.0.0.1:`port` offering `protocols` by ALPN, verifying the server as `localhost`
    /// against `certificatePath`; unless HTTP/2 was agreed, then one HTTP/1.1 `GET path`.
    /// - Returns: The agreed protocol, and the raw HTTP/1.1 response (nil after `h2`).
    static func connect(
        port: Int, trusting certificatePath: String, offering protocols: [String], path: String
    ) async throws
        -> (negotiated: String?, response: String?)
    {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificatePath))
        configuration.applicationProtocols = protocols
        let context = try NIOSSLContext(configuration: configuration)
        let (channel, negotiated) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let promise = channel.eventLoop.makePromise(of: String?.self)
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: "localhost"))
                    try channel.pipeline.syncOperations.addHandler(NegotiatedProtocol(promise))
                    return (try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel), promise.futureResult)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            let agreed = try await negotiated.get()
            guard agreed != "h2" else { return (agreed, nil) }
            try await outbound.write(ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"))
            var text = ""
            do {
                for try await chunk in inbound { text += String(buffer: chunk) }
            } catch NIOSSLError.uncleanShutdown {
                // The answer is complete; the server closed without close_notify.
            }
            return (agreed, text)
        }
    }

    static let countPath = "/arcgis/rest/services/parks/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json"

    @Test("the listener offers h2 before http/1.1, or nothing beyond HTTP/1.1 when HTTP/2 is off")
    func protocols() {
        #expect(ServerTLS.listenerProtocols(offersHTTP2: true) == ["h2", "http/1.1"])
        #expect(ServerTLS.listenerProtocols(offersHTTP2: false).isEmpty)
        #expect(LocalFeatureServerConfiguration.TLS(certificate: .selfSigned).offersHTTP2)
    }

    @Test("a client offering h2 gets it; one offering only http/1.1 gets HTTP/1.1 answers", .timeLimit(.minutes(1)))
    func negotiation() async throws {
        try await withConfiguredServer({ $0.tls = .init(certificate: .selfSigned) }) { endpoint in
            let path = try #require(endpoint.certificatePath)
            let h2 = try await Self.connect(port: endpoint.port, trusting: path, offering: ["h2", "http/1.1"], path: Self.countPath)
            #expect(h2.negotiated == "h2")
            let http1 = try await Self.connect(port: endpoint.port, trusting: path, offering: ["http/1.1"], path: Self.countPath)
            #expect(http1.negotiated == "http/1.1")
            let response = try #require(http1.response)
            #expect(response.hasPrefix("HTTP/1.1 200"))
            #expect(HTTPSListenerTests.body(response) == #"{"count":12}"#)
        }
    }

    @Test("with HTTP/2 off a client offering h2 agrees on no protocol and is served HTTP/1.1", .timeLimit(.minutes(1)))
    func http2Off() async throws {
        try await withConfiguredServer({ $0.tls = .init(certificate: .selfSigned, offersHTTP2: false) }) { endpoint in
            let path = try #require(endpoint.certificatePath)
            let result = try await Self.connect(port: endpoint.port, trusting: path, offering: ["h2", "http/1.1"], path: Self.countPath)
            #expect(result.negotiated == nil)
            let response = try #require(result.response)
            #expect(response.hasPrefix("HTTP/1.1 200"))
            #expect(HTTPSListenerTests.body(response) == #"{"count":12}"#)
        }
    }
}
