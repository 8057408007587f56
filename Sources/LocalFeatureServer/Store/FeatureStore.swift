import FeatureModel
import GRDB
import SQLiteSupport

/// The SQLite store behind one hosted service: one table per layer in one database file.
///
/// Isolation: an actor, so writes (applyEdits) are serialised and each runs as one synchronous
/// `DatabasePool` write — one transaction with cached statements, no suspension inside. Queries are
/// `nonisolated` and run on the pool's read connections: in WAL mode they see the last committed state and
/// neither wait for nor block the writer.
///
/// Lifetime: open with ``open(path:definition:now:)``, ``close()`` when the server has stopped. Closing
/// checkpoints the WAL so the file is complete on its own.
actor FeatureStore {
    /// The service this store holds.
    nonisolated let definition: ServiceDefinition
    /// Table layout per layer id.
    nonisolated let schemas: [Int: LayerSchema]
    private let pool: DatabasePool
    private let now: @Sendable () -> Int64
    private var isClosed = false
    /// The last GlobalID sequence handed out, so server-assigned GlobalIDs keep rising across requests.
    private var globalIdSequence: UInt64 = 0
    private let executor: DispatchQueueExecutor
    /// Copies the write-ahead log into the file off the writer's path; nil when it could not open its connection.
    private let checkpointer: WALCheckpointer?

    /// Runs the actor on its own serial queue: see ``DispatchQueueExecutor``.
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private init(
        definition: ServiceDefinition, schemas: [Int: LayerSchema], pool: DatabasePool, checkpointer: WALCheckpointer?,
        now: @escaping @Sendable () -> Int64
    ) {
        self.definition = definition
        self.schemas = schemas
        self.pool = pool
        self.checkpointer = checkpointer
        self.now = now
        self.executor = DispatchQueueExecutor(label: "featureload.store.\(definition.name)")
    }

    /// Page cache of each connection, in KiB (SQLite's default is 2 MiB). The GlobalID index of a layer with client
    /// GlobalIDs is written at random places: with the default, a layer of 100,000 rows no longer fit and nearly every
    /// add read an index page back from the file. Pages are allocated only as they are used.
    static let cacheKibibytes = 32 * 1024

    /// Pages the write-ahead log may hold before the writer copies it into the file itself (SQLite's default is
    /// 1,000, 4 MB): normally ``WALCheckpointer`` copies it long before, off the writer's path, and this is only
    /// for when it falls behind. Under writes that never pause the background copy never quite catches up with the
    /// writer, and the log starts again from its beginning only once the writer has copied it here.
    static let walAutocheckpointPages = 16_384

    /// Opens (creating and seeding if new) the database at `path` for `definition`.
    ///
    /// A new file gets the tables and the seed rows; an existing file keeps its rows, and must have been created
    /// for the same dataset with the same columns.
    /// - Parameters:
    ///   - now: The current time in epoch milliseconds (for `editMoment`).
    /// - Throws: ``StoreOpenError`` when the file cannot be opened, belongs to another dataset or layout, or the
    ///   seed rows are invalid; `DatabaseError` for other SQLite failures.
    static func open(path: String, definition: ServiceDefinition, now: @escaping @Sendable () -> Int64) throws -> FeatureStore {
        let infos = definition.layers.map(\.info)
        var schemas: [Int: LayerSchema] = [:]
        for info in infos { schemas[info.id] = LayerSchema(info: info, serviceLayers: infos) }

        var configuration = Configuration()
        configuration.label = "featureload.\(definition.name)"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA cache_size = -\(cacheKibibytes)")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(walAutocheckpointPages)")
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw StoreOpenError(reason: "\(error)")
        }
        do {
            try prepare(pool: pool, definition: definition, schemas: schemas)
            try AttachmentSchema.prepare(pool: pool, schemas: schemas)
        } catch {
            try? pool.close()
            throw error
        }
        let checkpointer = WALCheckpointer(path: path, label: "featureload.checkpoint.\(definition.name)")
        return FeatureStore(definition: definition, schemas: schemas, pool: pool, checkpointer: checkpointer, now: now)
    }

    private static func prepare(pool: DatabasePool, definition: ServiceDefinition, schemas: [Int: LayerSchema]) throws {
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS featureload_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
            if let existing = try String.fetchOne(db, sql: "SELECT value FROM featureload_meta WHERE key = 'dataset'") {
                guard existing == definition.name else {
                    throw StoreOpenError(
                        reason:
                            "the file holds dataset '\(existing)', not '\(definition.name)'. Fix: use another data file for '\(definition.name)', or use this one with dataset '\(existing)'"
                    )
                }
                for schema in schemas.values {
                    let columns = try db.columns(in: "layer_\(schema.info.id)").map(\.name)
                    guard columns == schema.expectedColumns else {
                        throw StoreOpenError(
                            reason:
                                "table layer_\(schema.info.id) has columns \(columns), expected \(schema.expectedColumns) (was it made by another version?)"
                        )
                    }
                    try ShapeIndex.prepare(schema, db: db)
                }
                return
            }
            for schema in schemas.values.sorted(by: { $0.info.id < $1.info.id }) {
                for statement in schema.createStatements { try db.execute(sql: statement) }
            }
            for layer in definition.layers where !layer.seedRows.isEmpty {
                let batch = EditBatch(
                    adds: layer.seedRows.map { FeatureEdit(attributes: $0.attributes, geometry: $0.geometry.flatMap(Self.jsonValue)) },
                    useGlobalIds: true
                )
                var writer = EditWriter(
                    db: db, layer: schemas[layer.info.id]!, schemas: schemas, batch: batch,
                    globalIds: GlobalIDFactory(previous: 0, nowMilliseconds: 0, seed: UInt64(layer.info.id) &+ 1))
                _ = try writer.apply()
                guard writer.failures.isEmpty else {
                    throw StoreOpenError(reason: "seed rows of layer \(layer.info.id) are invalid: \(writer.failures.joined(separator: "; "))")
                }
            }
            try db.execute(sql: "INSERT INTO featureload_meta (key, value) VALUES ('dataset', ?)", arguments: [definition.name])
        }
    }

    private static func jsonValue(_ geometry: Geometry) -> JSONValue? {
        var writer = JSONWriter(capacity: 1_024)
        writer.write(geometry)
        return try? JSONReader.parse(writer.string)
    }

    /// Applies `batch` to layer `layerId` in one transaction.
    ///
    /// Returns the per-edit results. With `rollbackOnFailure` (the default) and any failed edit nothing is
    /// written and the ArcGIS "Operation rolled back." envelope is thrown instead.
    /// - Throws: ``ServiceError`` (404 for an unknown layer, 400 rolled back); `DatabaseError` for SQLite failures.
    func applyEdits(layerId: Int, batch: EditBatch) throws -> ApplyEditsResult {
        try checkOpen()
        guard let layer = schemas[layerId] else { throw ServiceError.notFound("Layer \(layerId) does not exist.") }
        let schemas = self.schemas
        var globalIds = makeGlobalIdFactory()
        let (result, failures) = try writeInTransaction { db -> (ApplyEditsResult, [String], Bool) in
            var writer = EditWriter(db: db, layer: layer, schemas: schemas, batch: batch, globalIds: globalIds)
            let result = try writer.apply()
            globalIds = writer.globalIds
            return (result, writer.failures, batch.rollbackOnFailure && !writer.failures.isEmpty)
        }
        remember(globalIds)
        if batch.rollbackOnFailure && !failures.isEmpty { throw ServiceError.rolledBack(failures) }
        var answer = result
        if batch.returnEditMoment { answer.editMoment = now() }
        return answer
    }

    /// Throws when the store has been closed.
    /// - Throws: ``ServiceError`` (500).
    func checkOpen() throws(ServiceError) {
        guard !isClosed else { throw ServiceError.internalError("the store is closed") }
    }

    /// A GlobalID factory continuing after the last GlobalID handed out.
    func makeGlobalIdFactory() -> GlobalIDFactory {
        GlobalIDFactory(previous: globalIdSequence, nowMilliseconds: now())
    }

    /// Records the GlobalIDs `factory` handed out, so later ones keep rising.
    func remember(_ factory: GlobalIDFactory) {
        globalIdSequence = max(globalIdSequence, factory.sequence)
    }

    /// The current time in epoch milliseconds.
    func currentTime() -> Int64 { now() }

    /// Runs `body` in one immediate write transaction, which commits unless `body` answers `rollback` true.
    ///
    /// With `movingBlobs` (attachments and uploads), the page cache is held to SQLite's default size meanwhile
    /// (``BlobIO/withSmallCache(_:_:)``), so that a large file moving through it does not fill the cache kept for
    /// the indexes.
    /// - Throws: `DatabaseError` for SQLite failures; whatever `body` throws (the transaction rolls back).
    func writeInTransaction<A, B>(movingBlobs: Bool = false, _ body: (Database) throws -> (A, B, rollback: Bool)) throws -> (A, B) {
        try pool.writeWithoutTransaction { db -> (A, B) in
            var outcome: (A, B)?
            func transaction() throws {
                try db.inTransaction(.immediate) {
                    let (a, b, rollback) = try body(db)
                    outcome = (a, b)
                    return rollback ? .rollback : .commit
                }
            }
            if movingBlobs { try BlobIO.withSmallCache(db, transaction) } else { try transaction() }
            return outcome!
        }
    }

    /// Runs `body` on a read connection (never waits for the writer).
    /// - Throws: `DatabaseError` for SQLite failures; `CancellationError`.
    nonisolated func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await pool.read(body)
    }

    /// Runs `query` on layer `layerId` on a read connection (never waits for the writer).
    /// - Throws: ``ServiceError`` (404) for an unknown layer; `DatabaseError` for SQLite failures; `CancellationError`.
    nonisolated func query(layerId: Int, _ query: LayerQuery) async throws -> QueryAnswer {
        guard let layer = schemas[layerId] else { throw ServiceError.notFound("Layer \(layerId) does not exist.") }
        return try await pool.read { db in try QueryReader.run(query, layer: layer, db: db) }
    }

    /// Number of rows in layer `layerId` (for tests and diagnostics).
    /// - Throws: `DatabaseError` for SQLite failures.
    nonisolated func rowCount(layerId: Int) throws -> Int {
        guard let layer = schemas[layerId] else { return 0 }
        return try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(layer.table)") ?? 0 }
    }

    deinit {
        // A store dropped without close(): its checkpointer's thread ends with it.
        checkpointer?.stop()
    }

    /// Closes every connection without checkpointing, for a store that was opened but never served (a failed start).
    nonisolated func closeSynchronously() {
        checkpointer?.stop()
        try? pool.close()
    }

    /// Checkpoints the WAL into the main file and closes every connection. Later writes fail.
    /// - Throws: `DatabaseError` when SQLite cannot close (e.g. a read still runs).
    func close() throws {
        guard !isClosed else { return }
        isClosed = true
        checkpointer?.stop()
        _ = try? pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try pool.close()
    }
}

/// Why a database file could not be opened for a dataset.
struct StoreOpenError: Error, Sendable, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
