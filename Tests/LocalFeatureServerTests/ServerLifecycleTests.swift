import FeatureModel
import FeatureServiceClient
import Foundation
import LocalFeatureServer
import Logging
import Testing

@Suite struct ServerLifecycleTests {
    static let logger: Logger = {
        var logger = Logger(label: "featureload.lifecycle-test")
        logger.logLevel = .critical
        return logger
    }()

    @Test("withLocalFeatureServer reports the bound port and removes its temporary database", .timeLimit(.minutes(1)))
    func temporaryDatabase() async throws {
        let endpoint = try await withLocalFeatureServer(LocalFeatureServerConfiguration(), logger: Self.logger) { endpoint in
            #expect(endpoint.port > 0)
            #expect(endpoint.serviceNames == ["parks"])
            #expect(endpoint.rootURL == "http://127.0.0.1:\(endpoint.port)/arcgis/rest/services")
            #expect(endpoint.serviceURL("parks") == "http://127.0.0.1:\(endpoint.port)/arcgis/rest/services/parks/FeatureServer")
            #expect(FileManager.default.fileExists(atPath: endpoint.databasePath))
            try await withCurlTransport { transport in
                let response = try await transport.send(HTTPRequest(url: endpoint.serviceURL("parks") + "?f=json"))
                #expect(try WireJSON.decode(ServiceInfo.self, from: response.body).layers.count == 1)
            }
            return endpoint
        }
        #expect(!FileManager.default.fileExists(atPath: endpoint.databasePath))
        #expect(!FileManager.default.fileExists(atPath: (endpoint.databasePath as NSString).deletingLastPathComponent))
    }

    @Test("an unknown dataset names the known ones", .timeLimit(.minutes(1)))
    func unknownDataset() async {
        let error = await #expect(throws: LocalFeatureServerError.self) {
            try await withLocalFeatureServer(LocalFeatureServerConfiguration(dataset: "nope"), logger: Self.logger) { _ in }
        }
        #expect(error?.isUnknownDataset == true)
        #expect(error?.description.contains("parks") == true)
    }

    @Test("an unopenable database path is reported with the path", .timeLimit(.minutes(1)))
    func badDatabasePath() async {
        let path = "/nonexistent-directory-\(UUID().uuidString)/parks.sqlite"
        let error = await #expect(throws: LocalFeatureServerError.self) {
            try await withLocalFeatureServer(LocalFeatureServerConfiguration(databasePath: path), logger: Self.logger) { _ in }
        }
        #expect(error?.isDatabaseOpenFailure == true)
        #expect(error?.description.contains(path) == true)
    }

    @Test("a port already in use is a bind failure", .timeLimit(.minutes(1)))
    func portInUse() async throws {
        try await withLocalFeatureServer(LocalFeatureServerConfiguration(), logger: Self.logger) { first in
            let error = await #expect(throws: LocalFeatureServerError.self) {
                try await withLocalFeatureServer(LocalFeatureServerConfiguration(port: first.port), logger: Self.logger) { _ in }
            }
            #expect(error?.isBindFailure == true)
        }
    }

    @Test("an error thrown by the body still stops the server and propagates", .timeLimit(.minutes(1)))
    func bodyThrows() async throws {
        struct Expected: Error { let port: Int }
        let error = await #expect(throws: Expected.self) {
            try await withLocalFeatureServer(LocalFeatureServerConfiguration(), logger: Self.logger) { endpoint in throw Expected(port: endpoint.port)
            }
        }
        let port = try #require(error?.port)
        // Stopped: nothing answers on its port any more, and a new server can take that port.
        await #expect(throws: (any Error).self, "the server still answered after the body threw") {
            try await withCurlTransport { transport in
                try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(port)/arcgis/rest/info?f=json", timeout: .seconds(5)))
            }
        }
        try await withLocalFeatureServer(LocalFeatureServerConfiguration(port: port), logger: Self.logger) { endpoint in
            #expect(endpoint.port == port)
        }
    }

    @Test("runLocalFeatureServer calls onListening, serves, and cleans up when its task is cancelled", .timeLimit(.minutes(1)))
    func runUntilCancelled() async throws {
        let (endpoints, continuation) = AsyncStream.makeStream(of: LocalFeatureServerEndpoint.self)
        let endpoint = try await withThrowingTaskGroup(of: Void.self, returning: LocalFeatureServerEndpoint.self) { group in
            group.addTask {
                try await runLocalFeatureServer(LocalFeatureServerConfiguration(), logger: Self.logger) { endpoint in
                    continuation.yield(endpoint)
                }
            }
            var iterator = endpoints.makeAsyncIterator()
            let endpoint = try #require(await iterator.next())
            try await withCurlTransport { transport in
                let response = try await transport.send(HTTPRequest(url: endpoint.rootURL + "?f=json"))
                #expect(try WireJSON.decode(ServiceCatalog.self, from: response.body).services.first?.name == "parks")
            }
            group.cancelAll()
            // Cancellation ends the run quietly or with CancellationError; any other error is a failed clean-up.
            do { try await group.waitForAll() } catch is CancellationError {}
            return endpoint
        }
        #expect(!FileManager.default.fileExists(atPath: endpoint.databasePath))
        await #expect(throws: (any Error).self, "the server still answered after its task was cancelled") {
            try await withCurlTransport { transport in
                try await transport.send(HTTPRequest(url: endpoint.rootURL + "?f=json", timeout: .seconds(5)))
            }
        }
    }
}
