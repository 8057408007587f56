import FeatureModel
import GRDB

/// Where a new attachment's bytes come from.
enum AttachmentSource: Sendable, Hashable {
    /// A file part of the request (`attachment` of addAttachment/updateAttachment).
    case part(FilePart)
    /// Bytes in memory (the base64 `data` of an applyEdits attachment).
    case bytes([UInt8])
    /// A committed item of the service's `uploads` resource (`uploadId`).
    case upload(itemId: String)
}

/// The content of an attachment add or update; nil members of an update keep the stored value.
struct AttachmentContent: Sendable, Hashable {
    var name: String?
    var contentType: String?
    var keywords: String?
    var source: AttachmentSource?
}

/// Which attachment an update or delete addresses.
enum AttachmentKey: Sendable, Hashable {
    case id(Int64)
    case globalId(String)
}

/// Writes attachments of one layer inside an open write transaction (the caller's), so attachment edits commit or
/// roll back with the feature edits around them.
///
/// Every method answers an ``EditResult`` (`objectId` = the attachment id); a failed edit is `success: false`
/// with code 1008 (add), 1009 (update) or 1010 (delete) — or 1011 for a missing feature, 1022 for a duplicate
/// GlobalID — and nothing written for it.
struct AttachmentWriter {
    let db: Database
    let layer: LayerSchema
    var globalIds: GlobalIDFactory

    static let addFailed = 1008
    static let updateFailed = 1009
    static let deleteFailed = 1010

    /// The feature with object ID `objectId`: its GlobalID (nil when the layer has none), or nil when it does not exist.
    /// - Throws: `DatabaseError`.
    func parent(objectId: Int64) throws -> (objectId: Int64, globalId: String?)? {
        let globalId = layer.globalIdField.map(layer.column) ?? "NULL"
        let sql = "SELECT \(layer.column(layer.objectIdField)), \(globalId) FROM \(layer.table) WHERE \(layer.column(layer.objectIdField)) = ?"
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [objectId]) else { return nil }
        return (row[0], row[1])
    }

    /// The object ID of the feature with GlobalID `globalId` (any case, braces optional), or nil.
    /// - Throws: `DatabaseError`.
    func parent(globalId: String) throws -> Int64? {
        guard let field = layer.globalIdField, let normalized = GlobalID.normalized(globalId) else { return nil }
        let sql = "SELECT \(layer.column(layer.objectIdField)) FROM \(layer.table) WHERE \(layer.column(field)) = ?"
        return try Int64.fetchOne(db.cachedStatement(sql: sql), arguments: [normalized])
    }

    /// Adds an attachment to feature `parentObjectId` (which must exist) with `globalId` (nil: a new one).
    /// - Throws: `DatabaseError` for SQLite failures other than a duplicate GlobalID.
    mutating func add(parentObjectId: Int64, content: AttachmentContent, globalId: String?) throws -> EditResult {
        let code = Self.addFailed
        guard let source = content.source else {
            return .failure(globalId: globalId, code: code, description: "The attachment has no data (a file part, 'data' or 'uploadId').")
        }
        let resolved: (BlobSource, Int)
        switch try resolve(source) {
        case .success(let value): resolved = value
        case .failure(let problem): return .failure(globalId: globalId, code: code, description: problem.description)
        }
        let id: String
        if let globalId {
            guard let normalized = GlobalID.normalized(globalId) else {
                return .failure(globalId: globalId, code: EditErrorCode.globalIdInvalid, description: "GlobalID \(globalId) is not a valid GUID.")
            }
            id = normalized
        } else {
            id = globalIds.make()
        }
        let sql = """
            INSERT INTO \(AttachmentSchema.attachments) (layer_id, parent_object_id, global_id, name, content_type, keywords, size, data)
            VALUES (?, ?, ?, ?, ?, ?, ?, zeroblob(?))
            """
        let arguments: StatementArguments = [
            layer.info.id, parentObjectId, id, AttachmentName.sanitized(content.name ?? ""), AttachmentName.contentType(content.contentType),
            AttachmentName.keywords(content.keywords), resolved.1, resolved.1,
        ]
        do {
            try db.cachedStatement(sql: sql).execute(arguments: arguments)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            return .failure(
                globalId: id, code: EditErrorCode.uniqueConstraint, description: "Unique constraint violation: GlobalID \(id) already exists.")
        }
        let attachmentId = db.lastInsertedRowID
        try BlobIO.write(resolved.0, size: resolved.1, db: db, table: AttachmentSchema.attachments, column: "data", rowid: attachmentId)
        return EditResult(objectId: attachmentId, globalId: id, success: true)
    }

    /// Updates attachment `key` of feature `parentObjectId` (any feature of the layer when nil): the members of
    /// `content` that are set.
    /// - Throws: `DatabaseError`.
    func update(_ key: AttachmentKey, parentObjectId: Int64?, content: AttachmentContent) throws -> EditResult {
        let code = Self.updateFailed
        guard let (condition, arguments) = condition(key, parentObjectId: parentObjectId) else {
            return .failure(
                globalId: key.globalId, code: EditErrorCode.globalIdInvalid, description: "GlobalID \(key.globalId ?? "") is not a valid GUID.")
        }
        var assignments: [String] = []
        var values: StatementArguments = []
        if let name = content.name {
            assignments.append("name = ?")
            values += [AttachmentName.sanitized(name)]
        }
        if let contentType = content.contentType {
            assignments.append("content_type = ?")
            values += [AttachmentName.contentType(contentType)]
        }
        if let keywords = content.keywords {
            assignments.append("keywords = ?")
            values += [AttachmentName.keywords(keywords)]
        }
        var resolved: (BlobSource, Int)?
        if let source = content.source {
            switch try resolve(source) {
            case .success(let value): resolved = value
            case .failure(let problem): return .failure(objectId: key.id, globalId: key.globalId, code: code, description: problem.description)
            }
            assignments += ["size = ?", "data = zeroblob(?)", "revision = revision + 1"]
            values += [resolved!.1, resolved!.1]
        }
        let sql: String
        if assignments.isEmpty {
            sql = "SELECT id, global_id FROM \(AttachmentSchema.attachments) WHERE \(condition)"
        } else {
            sql = "UPDATE \(AttachmentSchema.attachments) SET \(assignments.joined(separator: ", ")) WHERE \(condition) RETURNING id, global_id"
        }
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: values + arguments) else {
            return .failure(
                objectId: key.id, globalId: key.globalId, code: code, description: "Attachment \(key) does not exist\(of(parentObjectId)).")
        }
        let attachmentId: Int64 = row[0]
        if let (source, size) = resolved {
            try BlobIO.write(source, size: size, db: db, table: AttachmentSchema.attachments, column: "data", rowid: attachmentId)
        }
        return EditResult(objectId: attachmentId, globalId: row[1], success: true)
    }

    /// Deletes attachment `key` of feature `parentObjectId` (any feature of the layer when nil).
    /// - Throws: `DatabaseError`.
    func delete(_ key: AttachmentKey, parentObjectId: Int64?) throws -> EditResult {
        guard let (condition, arguments) = condition(key, parentObjectId: parentObjectId) else {
            return .failure(
                globalId: key.globalId, code: EditErrorCode.globalIdInvalid, description: "GlobalID \(key.globalId ?? "") is not a valid GUID.")
        }
        let sql = "DELETE FROM \(AttachmentSchema.attachments) WHERE \(condition) RETURNING id, global_id"
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) else {
            return .failure(
                objectId: key.id, globalId: key.globalId, code: Self.deleteFailed,
                description: "Attachment \(key) does not exist\(of(parentObjectId)).")
        }
        return EditResult(objectId: row[0], globalId: row[1], success: true)
    }

    private func of(_ parentObjectId: Int64?) -> String {
        parentObjectId.map { " on feature \($0) of layer \(layer.info.id)" } ?? " in layer \(layer.info.id)"
    }

    private func condition(_ key: AttachmentKey, parentObjectId: Int64?) -> (String, StatementArguments)? {
        var condition = "layer_id = ?"
        var arguments: StatementArguments = [layer.info.id]
        switch key {
        case .id(let id):
            condition += " AND id = ?"
            arguments += [id]
        case .globalId(let text):
            guard let normalized = GlobalID.normalized(text) else { return nil }
            condition += " AND global_id = ?"
            arguments += [normalized]
        }
        if let parentObjectId {
            condition += " AND parent_object_id = ?"
            arguments += [parentObjectId]
        }
        return (condition, arguments)
    }

    /// The BLOB source and size of `source`, or why it cannot be used.
    private func resolve(_ source: AttachmentSource) throws -> Result<(BlobSource, Int), UploadProblem> {
        switch source {
        case .part(let part):
            return .success((part.blobSource, part.size))
        case .bytes(let bytes):
            return .success((.bytes(bytes), bytes.count))
        case .upload(let itemId):
            let sql = "SELECT rowid, committed, size FROM \(AttachmentSchema.uploads) WHERE item_id = ?"
            guard UploadItemID.isValid(itemId), let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [itemId]) else {
                return .failure(UploadProblem("Upload item '\(UploadItemID.printable(itemId))' does not exist."))
            }
            guard row[1] as Bool, let size = row[2] as Int? else {
                return .failure(UploadProblem("Upload item '\(itemId)' is not committed."))
            }
            return .success((.blob(table: AttachmentSchema.uploads, column: "data", rowid: row[0]), size))
        }
    }
}

/// Why an attachment source cannot be used (becomes the edit result's description).
struct UploadProblem: Error, Sendable, Hashable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension AttachmentKey: CustomStringConvertible {
    var description: String {
        switch self {
        case .id(let id): return String(id)
        case .globalId(let globalId): return globalId
        }
    }

    var id: Int64? {
        if case .id(let value) = self { return value }
        return nil
    }

    var globalId: String? {
        if case .globalId(let value) = self { return value }
        return nil
    }
}
