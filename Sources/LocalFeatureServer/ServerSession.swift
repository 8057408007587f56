import FeatureModel
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Everything one server run owns besides the HTTP listener: the datasets, their stores, and the temporary
/// directory (if the databases are temporary), with the setup and teardown both entry points share.
struct ServerSession: Sendable {
    let configuration: LocalFeatureServerConfiguration
    /// One store per hosted service, in the order of the configuration's datasets.
    let stores: [FeatureStore]
    /// The database file (one service) or the directory of database files (several services).
    let databasePath: String
    /// Removed by ``close(logger:)`` when the database is temporary.
    let temporaryDirectory: URL?
    /// The HTTPS listener's certificate and key; nil for plain HTTP.
    let tls: ServerTLS?

    /// Resolves the datasets (see ``DatasetCatalog``, relative to the working directory) and opens (or creates)
    /// one database per service: at `databasePath` for a single service; as `<name>.sqlite` inside the directory
    /// `databasePath` (created if missing) for several.
    /// With ``LocalFeatureServerConfiguration/tls`` set it first loads (or generates) the certificate.
    /// - Throws: ``LocalFeatureServerError`` for an unknown or malformed dataset, two services of the same name, a
    ///   database that cannot be opened, a certificate that cannot be read or made, or token security with no user who
    ///   could sign in.
    static func open(_ configuration: LocalFeatureServerConfiguration, logger: Logger) throws -> ServerSession {
        // A server nobody can sign in to would answer every request 499 without a word: refuse it before it listens.
        if let users = configuration.auth.users, users.usableUsernames.isEmpty {
            throw LocalFeatureServerError.noUsableUser(users: users.usernames.count)
        }
        let tls = try configuration.tls.map {
            try ServerTLS.prepare($0, host: configuration.host, idleTimeout: configuration.connections.idleTimeout)
        }
        do {
            return try open(configuration, tls: tls, logger: logger)
        } catch {
            tls?.removeTemporaryFiles()
            throw error
        }
    }

    private static func open(_ configuration: LocalFeatureServerConfiguration, tls: ServerTLS?, logger: Logger) throws -> ServerSession {
        let references = configuration.datasets.isEmpty ? [configuration.dataset] : configuration.datasets
        let workingDirectory = FileManager.default.currentDirectoryPath
        var definitions: [ServiceDefinition] = []
        for reference in references {
            let definition = try DatasetCatalog.resolve(reference, workingDirectory: workingDirectory, generatedRows: configuration.generatedRows)
            if definitions.contains(where: { $0.name.lowercased() == definition.name.lowercased() }) {
                throw LocalFeatureServerError.invalidDataset(
                    file: reference,
                    issues: [
                        DatasetIssue(path: "name", problem: "service '\(definition.name)' is already served", fix: "give each dataset its own name")
                    ])
            }
            definitions.append(definition)
        }
        var temporaryDirectory: URL?
        var paths: [String] = []
        let location: String
        if let configured = configuration.databasePath, definitions.count == 1 {
            location = configured
            paths = [configured]
        } else {
            let directory: URL
            if let configured = configuration.databasePath {
                directory = URL(fileURLWithPath: configured)
            } else {
                directory = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-serve-\(UUID().uuidString)")
                temporaryDirectory = directory
            }
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw LocalFeatureServerError.databaseOpen(path: directory.path, reason: "cannot create the directory: \(error)")
            }
            paths = definitions.map { directory.appendingPathComponent("\($0.name).sqlite").path }
            location = definitions.count == 1 ? paths[0] : directory.path
        }
        var stores: [FeatureStore] = []
        for (definition, path) in zip(definitions, paths) {
            do {
                stores.append(
                    try FeatureStore.open(path: path, definition: definition) {
                        Int64((Date().timeIntervalSince1970 * 1000).rounded())
                    })
            } catch {
                for store in stores { store.closeSynchronously() }
                if let temporaryDirectory { try? FileManager.default.removeItem(at: temporaryDirectory) }
                throw LocalFeatureServerError.databaseOpen(path: path, reason: "\(error)")
            }
            logger.debug("database open", metadata: ["path": "\(path)", "dataset": "\(definition.name)"])
        }
        return ServerSession(configuration: configuration, stores: stores, databasePath: location, temporaryDirectory: temporaryDirectory, tls: tls)
    }

    /// The endpoint for the bound `port`.
    func endpoint(port: Int) -> LocalFeatureServerEndpoint {
        LocalFeatureServerEndpoint(
            host: configuration.host,
            port: port,
            serviceNames: stores.map(\.definition.name),
            databasePath: databasePath,
            scheme: tls == nil ? "http" : "https",
            certificatePath: tls?.certificatePath
        )
    }

    /// The Hummingbird application serving the store (HTTP/1.1; inside TLS when configured, HTTP/2 or HTTP/1.1 by
    /// ALPN), calling
    /// `onServerRunning` with the bound port.
    func makeApplication(logger: Logger, onServerRunning: @escaping @Sendable (Int) async -> Void) -> some ApplicationProtocol {
        let responder = FeatureServerResponder(stores: stores, limits: configuration.recordLimits, logger: logger)
        let requestedPort = configuration.port
        let connections = configuration.connections
        return Application(
            router: FeatureServerApplication.makeRouter(responder: responder, configuration: configuration, logger: logger),
            server: tls?.serverBuilder ?? .http1(configuration: HTTP1Channel.Configuration(idleTimeout: TimeAmount(connections.idleTimeout))),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                availableConnectionsDelegate: ConnectionCap(limit: connections.effectiveMaximumConnections, logger: logger)),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? requestedPort) },
            logger: logger
        )
    }

    /// Closes the database (checkpointed, intact) and removes the temporary directory and a generated certificate,
    /// logging failures.
    func close(logger: Logger) async {
        tls?.removeTemporaryFiles()
        for store in stores {
            do {
                try await store.close()
            } catch {
                logger.error("closing the database failed", metadata: ["path": "\(databasePath)", "error": "\(error)"])
            }
        }
        if let temporaryDirectory {
            do {
                try FileManager.default.removeItem(at: temporaryDirectory)
            } catch {
                logger.warning("removing the temporary database failed", metadata: ["path": "\(temporaryDirectory.path)", "error": "\(error)"])
            }
        }
    }
}
