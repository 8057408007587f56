import FeatureModel
import GRDB
import NIOCore

/// One stored attachment with its parent, as the attachment reads return it (ordered by parent, then id).
struct AttachmentRow: Sendable, Hashable {
    var parentObjectId: Int64
    var parentGlobalId: String?
    var info: AttachmentInfo
}

/// An attachment chosen for download: what the answer's headers need, and where to read its bytes.
struct AttachmentDownload: Sendable {
    let store: FeatureStore
    let attachmentId: Int64
    /// The stored revision; a chunk read fails when the bytes have changed since.
    let revision: Int64
    let size: Int
    let name: String
    let contentType: String
}

extension FeatureStore {
    /// `…/<layer>/<oid>/addAttachment`: adds `content` to feature `objectId` in one transaction.
    /// - Throws: ``ServiceError`` (404 unknown layer or feature); `DatabaseError`; Foundation's errors reading a
    ///   temporary file.
    func addAttachment(layerId: Int, objectId: Int64, content: AttachmentContent) throws -> EditResult {
        try checkOpen()
        let layer = try attachmentLayer(layerId)
        var globalIds = makeGlobalIdFactory()
        let (result, _) = try writeInTransaction(movingBlobs: true) { db -> (EditResult, Void, rollback: Bool) in
            var writer = AttachmentWriter(db: db, layer: layer, globalIds: globalIds)
            guard try writer.parent(objectId: objectId) != nil else { throw Self.featureMissing(objectId, layerId) }
            let result = try writer.add(parentObjectId: objectId, content: content, globalId: nil)
            globalIds = writer.globalIds
            return (result, (), !result.success)
        }
        remember(globalIds)
        return result
    }

    /// `…/<layer>/<oid>/updateAttachment`: replaces attachment `attachmentId` of feature `objectId` (the members of
    /// `content` that are set).
    /// - Throws: ``ServiceError`` (404 unknown layer or feature); `DatabaseError`; Foundation's file errors.
    func updateAttachment(layerId: Int, objectId: Int64, attachmentId: Int64, content: AttachmentContent) throws -> EditResult {
        try checkOpen()
        let layer = try attachmentLayer(layerId)
        let globalIds = makeGlobalIdFactory()
        let (result, _) = try writeInTransaction(movingBlobs: true) { db -> (EditResult, Void, rollback: Bool) in
            let writer = AttachmentWriter(db: db, layer: layer, globalIds: globalIds)
            guard try writer.parent(objectId: objectId) != nil else { throw Self.featureMissing(objectId, layerId) }
            let result = try writer.update(.id(attachmentId), parentObjectId: objectId, content: content)
            return (result, (), !result.success)
        }
        return result
    }

    /// `…/<layer>/<oid>/deleteAttachments`: deletes `attachmentIds` of feature `objectId` in one transaction. With
    /// `rollbackOnFailure` and any id missing nothing is deleted and the "Operation rolled back." envelope is thrown.
    /// - Throws: ``ServiceError`` (404 unknown layer or feature, 400 rolled back); `DatabaseError`.
    func deleteAttachments(layerId: Int, objectId: Int64, attachmentIds: [Int64], rollbackOnFailure: Bool) throws -> [EditResult] {
        try checkOpen()
        let layer = try attachmentLayer(layerId)
        let globalIds = makeGlobalIdFactory()
        let (results, failures) = try writeInTransaction(movingBlobs: true) { db -> ([EditResult], [String], rollback: Bool) in
            let writer = AttachmentWriter(db: db, layer: layer, globalIds: globalIds)
            guard try writer.parent(objectId: objectId) != nil else { throw Self.featureMissing(objectId, layerId) }
            var results: [EditResult] = []
            var failures: [String] = []
            for (index, id) in attachmentIds.enumerated() {
                let result = try writer.delete(.id(id), parentObjectId: objectId)
                if let error = result.error { failures.append("attachmentIds[\(index)]: \(error.description) (code \(error.code))") }
                results.append(result)
            }
            return (results, failures, rollbackOnFailure && !failures.isEmpty)
        }
        if rollbackOnFailure && !failures.isEmpty { throw ServiceError.rolledBack(failures) }
        return results
    }

    /// The attachments of feature `objectId` of layer `layerId`, by id, on a read connection.
    /// - Throws: ``ServiceError`` (404 unknown layer or feature); `DatabaseError`; `CancellationError`.
    nonisolated func attachments(layerId: Int, objectId: Int64) async throws -> [AttachmentInfo] {
        let layer = try attachmentLayer(layerId)
        return try await read { db in
            let writer = AttachmentWriter(db: db, layer: layer, globalIds: GlobalIDFactory(previous: 0, nowMilliseconds: 0, seed: 0))
            guard let parent = try writer.parent(objectId: objectId) else { throw Self.featureMissing(objectId, layerId) }
            let sql = "\(Self.selectInfos) WHERE layer_id = ? AND parent_object_id = ? ORDER BY id"
            return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: [layerId, objectId]).map {
                Self.info($0, parentGlobalId: parent.globalId)
            }
        }
    }

    /// The attachments of the features of layer `layerId` that match `parents` (the compiled `definitionExpression`)
    /// and, when given, `objectIds` and `globalIds`; ordered by parent object ID, then attachment id.
    /// - Throws: ``ServiceError`` (404 unknown layer); `DatabaseError`; `CancellationError`.
    nonisolated func attachments(layerId: Int, parents filter: SQLFragment, objectIds: [Int64]?, globalIds: [String]?) async throws -> [AttachmentRow]
    {
        let layer = try attachmentLayer(layerId)
        let oid = layer.column(layer.objectIdField)
        var conditions = [filter.sql]
        var bindings = filter.bindings
        if let objectIds {
            guard !objectIds.isEmpty else { return [] }
            conditions.append("\(oid) IN (\(Array(repeating: "?", count: objectIds.count).joined(separator: ",")))")
            bindings += objectIds.map { .integer($0) }
        }
        if let globalIds {
            guard let field = layer.globalIdField, !globalIds.isEmpty else { return [] }
            conditions.append("\(layer.column(field)) IN (\(Array(repeating: "?", count: globalIds.count).joined(separator: ",")))")
            bindings += globalIds.map { .text($0) }
        }
        let parentGlobalId = layer.globalIdField.map { "p.\(layer.column($0))" } ?? "NULL"
        let sql = """
            SELECT a.id, a.global_id, a.name, a.content_type, a.size, a.keywords, a.parent_object_id, \(parentGlobalId)
            FROM \(AttachmentSchema.attachments) a JOIN \(layer.table) p ON p.\(oid) = a.parent_object_id
            WHERE a.layer_id = ? AND a.parent_object_id IN (SELECT \(oid) FROM \(layer.table) WHERE \(conditions.map { "(\($0))" }.joined(separator: " AND ")))
            ORDER BY a.parent_object_id, a.id
            """
        let arguments = StatementArguments([layerId.databaseValue] + bindings.map(\.databaseValue))
        return try await read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                AttachmentRow(parentObjectId: row[6], parentGlobalId: row[7], info: Self.info(row, parentGlobalId: row[7]))
            }
        }
    }

    /// The attachment to download: `attachmentId` of feature `objectId`.
    /// - Throws: ``ServiceError`` (404 unknown layer, feature or attachment); `DatabaseError`; `CancellationError`.
    nonisolated func attachmentDownload(layerId: Int, objectId: Int64, attachmentId: Int64) async throws -> AttachmentDownload {
        _ = try attachmentLayer(layerId)
        let sql =
            "SELECT revision, size, name, content_type FROM \(AttachmentSchema.attachments) WHERE id = ? AND layer_id = ? AND parent_object_id = ?"
        let found = try await read { db -> (revision: Int64, size: Int, name: String, contentType: String)? in
            guard let row = try Row.fetchOne(db, sql: sql, arguments: [attachmentId, layerId, objectId]) else { return nil }
            return (row[0], row[1], row[2], row[3])
        }
        guard let found else {
            throw ServiceError.notFound("Attachment \(attachmentId) of feature \(objectId) in layer \(layerId) does not exist.")
        }
        return AttachmentDownload(
            store: self, attachmentId: attachmentId, revision: found.revision, size: found.size, name: found.name, contentType: found.contentType)
    }

    /// Up to `count` bytes of `download` from `offset`, on a read connection.
    /// - Throws: ``ServiceError`` (404) when the attachment was deleted or its bytes replaced since the download began;
    ///   `DatabaseError`; `CancellationError`.
    nonisolated func attachmentChunk(_ download: AttachmentDownload, offset: Int, count: Int) async throws -> ByteBuffer {
        try await read { db in
            let revision = try Int64.fetchOne(
                db, sql: "SELECT revision FROM \(AttachmentSchema.attachments) WHERE id = ?", arguments: [download.attachmentId])
            guard revision == download.revision else {
                throw ServiceError.notFound("Attachment \(download.attachmentId) changed during the download.")
            }
            return try BlobIO.read(
                db: db, table: AttachmentSchema.attachments, column: "data", rowid: download.attachmentId, offset: offset, count: count)
        }
    }

    /// Number of stored attachments in the whole service (for tests and diagnostics).
    /// - Throws: `DatabaseError`; `CancellationError`.
    nonisolated func attachmentCount() async throws -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(AttachmentSchema.attachments)") ?? 0 }
    }

    /// The schema of layer `layerId` if it has attachments.
    /// - Throws: ``ServiceError``: 404 for an unknown layer, 400 for a layer without attachments.
    nonisolated func attachmentLayer(_ layerId: Int) throws(ServiceError) -> LayerSchema {
        guard let layer = schemas[layerId] else { throw ServiceError.notFound("Layer \(layerId) does not exist.") }
        guard layer.info.hasAttachments == true else {
            throw ServiceError(
                ArcGISError(
                    code: 400, message: ServiceError.unableToComplete,
                    details: ["Layer \(layerId) does not support attachments (hasAttachments is false)."]))
        }
        return layer
    }

    static func featureMissing(_ objectId: Int64, _ layerId: Int) -> ServiceError {
        ServiceError.notFound("Feature \(objectId) does not exist in layer \(layerId).")
    }

    private static let selectInfos = "SELECT id, global_id, name, content_type, size, keywords FROM \(AttachmentSchema.attachments)"

    private static func info(_ row: Row, parentGlobalId: String?) -> AttachmentInfo {
        AttachmentInfo(
            id: row[0], globalId: row[1], parentGlobalId: parentGlobalId, name: row[2], contentType: row[3], size: row[4], keywords: row[5])
    }
}
