import FeatureModel
import Foundation
import Hummingbird
import Logging
import NIOCore

/// Everything one server run owns besides the HTTP listener: the dataset, the store, and the temporary
/// directory (if the database is temporary), with the setup and teardown both entry points share.
struct ServerSession: Sendable {
    let configuration: LocalFeatureServerConfiguration
    let store: FeatureStore
    let databasePath: String
    /// Removed by ``close(logger:)`` when the database is temporary.
    let temporaryDirectory: URL?

    /// Resolves the dataset and opens (or creates) the database.
    /// - Throws: ``LocalFeatureServerError`` for an unknown dataset or a database that cannot be opened.
    static func open(_ configuration: LocalFeatureServerConfiguration, logger: Logger) throws -> ServerSession {
        guard let definition = ServiceDefinition.builtIn(named: configuration.dataset) else {
            throw LocalFeatureServerError.unknownDataset(configuration.dataset, known: ServiceDefinition.builtIn.map(\.name))
        }
        var temporaryDirectory: URL?
        let path: String
        if let configured = configuration.databasePath {
            path = configured
        } else {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-serve-\(UUID().uuidString)")
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw LocalFeatureServerError.databaseOpen(path: directory.path, reason: "cannot create a temporary directory: \(error)")
            }
            temporaryDirectory = directory
            path = directory.appendingPathComponent("\(definition.name).sqlite").path
        }
        let store: FeatureStore
        do {
            store = try FeatureStore.open(path: path, definition: definition) {
                Int64((Date().timeIntervalSince1970 * 1000).rounded())
            }
        } catch {
            if let temporaryDirectory { try? FileManager.default.removeItem(at: temporaryDirectory) }
            throw LocalFeatureServerError.databaseOpen(path: path, reason: "\(error)")
        }
        logger.debug("database open", metadata: ["path": "\(path)", "dataset": "\(definition.name)"])
        return ServerSession(configuration: configuration, store: store, databasePath: path, temporaryDirectory: temporaryDirectory)
    }

    /// The endpoint for the bound `port`.
    func endpoint(port: Int) -> LocalFeatureServerEndpoint {
        LocalFeatureServerEndpoint(
            host: configuration.host,
            port: port,
            serviceNames: [store.definition.name],
            databasePath: databasePath
        )
    }

    /// The Hummingbird application serving the store, calling `onServerRunning` with the bound port.
    func makeApplication(logger: Logger, onServerRunning: @escaping @Sendable (Int) async -> Void) -> some ApplicationProtocol {
        let responder = FeatureServerResponder(stores: [store], maxRecordCount: configuration.maxRecordCount, logger: logger)
        let requestedPort = configuration.port
        return Application(
            router: FeatureServerApplication.makeRouter(responder: responder),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? requestedPort) },
            logger: logger
        )
    }

    /// Closes the database (checkpointed, intact) and removes the temporary directory, logging failures.
    func close(logger: Logger) async {
        do {
            try await store.close()
        } catch {
            logger.error("closing the database failed", metadata: ["path": "\(databasePath)", "error": "\(error)"])
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
