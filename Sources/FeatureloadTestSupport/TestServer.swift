import Foundation
import LocalFeatureServer
import Logging

/// A local feature service started for one test.
package struct TestServer: Sendable {
    /// `http://127.0.0.1:<port>/arcgis/rest/services`.
    package let rootURL: String
    /// `…/rest/services/<dataset>/FeatureServer`.
    package let serviceURL: String
    /// The bound ephemeral port.
    package let port: Int
    /// The SQLite file behind the server.
    package let databasePath: String

    /// A description of a running test server (made by ``withTestServer(dataset:databasePath:_:)``).
    package init(rootURL: String, serviceURL: String, port: Int, databasePath: String) {
        self.rootURL = rootURL
        self.serviceURL = serviceURL
        self.port = port
        self.databasePath = databasePath
    }
}

/// Runs `body` against a real local feature service on 127.0.0.1, port 0, backed by a real SQLite file.
///
/// Without `databasePath` the file lives in a fresh temporary directory that is removed afterwards; with one, the
/// file is created (or reopened) there and kept. The server stops and the database is closed before this returns.
/// - Parameters:
///   - dataset: A built-in dataset name.
///   - databasePath: Where the database file goes; nil for a temporary one.
///   - body: The test, given the running server.
/// - Throws: `LocalFeatureServerError` if the server cannot start; whatever `body` throws.
package func withTestServer<T: Sendable>(
    dataset: String = "parks",
    databasePath: String? = nil,
    _ body: @Sendable (TestServer) async throws -> T
) async throws -> T {
    var logger = Logger(label: "featureload.test-server")
    logger.logLevel = .warning
    var temporaryDirectory: URL?
    let path: String
    if let databasePath {
        path = databasePath
    } else {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        temporaryDirectory = directory
        path = directory.appendingPathComponent("\(dataset).sqlite").path
    }
    defer {
        if let temporaryDirectory { try? FileManager.default.removeItem(at: temporaryDirectory) }
    }
    let configuration = LocalFeatureServerConfiguration(host: "127.0.0.1", port: 0, databasePath: path, dataset: dataset)
    return try await withLocalFeatureServer(configuration, logger: logger) { endpoint in
        let server = TestServer(
            rootURL: endpoint.rootURL,
            serviceURL: endpoint.serviceURL(endpoint.serviceNames.first ?? dataset),
            port: endpoint.port,
            databasePath: endpoint.databasePath
        )
        return try await body(server)
    }
}
