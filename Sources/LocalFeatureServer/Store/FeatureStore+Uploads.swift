import FeatureModel
import Foundation
import GRDB

/// Item IDs of the `uploads` resource: made by the server (`i` + 32 hex digits), checked before any use.
enum UploadItemID {
    /// A new item ID.
    static func make() -> String {
        "i" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// Whether `text` can be an item ID: 1 to 64 letters, digits, `-`, `{` or `}` (so `../`, `/` and `%` never pass).
    static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 64
            && text.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-{}".unicodeScalars.contains($0)) }
    }

    /// `text` for an error message: itself when valid, otherwise a short escaped form.
    static func printable(_ text: String) -> String {
        isValid(text) ? text : String(text.unicodeScalars.prefix(64).map { $0.isASCII && $0.value >= 0x20 ? String($0) : "?" }.joined())
    }

    /// The part id of `text`: an integer from 1 to ``maximumPartId``.
    /// - Throws: ``ServiceError`` (400) naming `partId`.
    static func partId(_ text: String?) throws(ServiceError) -> Int {
        guard let text, let value = Int(text.trimmed), (1...maximumPartId).contains(value) else {
            throw ServiceError.invalidParameter("partId", reason: "expected an integer from 1 to \(maximumPartId), got '\(printable(text ?? ""))'")
        }
        return value
    }

    /// The highest part id accepted.
    static let maximumPartId = 10_000
}

extension FeatureStore {
    /// `uploads/upload`: stores `part` as a new committed item.
    /// - Throws: ``ServiceError`` (500 when closed); `DatabaseError`; Foundation's errors reading a temporary file.
    func upload(_ part: FilePart, description: String?) throws -> UploadItem {
        try checkOpen()
        let item = UploadItem(
            itemID: UploadItemID.make(), itemName: AttachmentName.sanitized(part.filename), description: AttachmentName.keywords(description),
            date: currentTime(), committed: true, size: Int64(part.size))
        let source = part.blobSource
        _ = try writeInTransaction(movingBlobs: true) { db -> (Void, Void, rollback: Bool) in
            try db.execute(
                sql:
                    "INSERT INTO \(AttachmentSchema.uploads) (item_id, item_name, description, date, committed, size, data) VALUES (?, ?, ?, ?, 1, ?, zeroblob(?))",
                arguments: [item.itemID, item.itemName, item.description, item.date, part.size, part.size])
            try BlobIO.write(source, size: part.size, db: db, table: AttachmentSchema.uploads, column: "data", rowid: db.lastInsertedRowID)
            return ((), (), false)
        }
        return item
    }

    /// `uploads/register`: a new item that receives its bytes in parts.
    /// - Throws: ``ServiceError`` (500 when closed); `DatabaseError`.
    func registerUpload(itemName: String?, description: String?) throws -> UploadItem {
        try checkOpen()
        let item = UploadItem(
            itemID: UploadItemID.make(), itemName: AttachmentName.sanitized(itemName ?? ""), description: AttachmentName.keywords(description),
            date: currentTime(), committed: false)
        _ = try writeInTransaction(movingBlobs: true) { db -> (Void, Void, rollback: Bool) in
            try db.execute(
                sql: "INSERT INTO \(AttachmentSchema.uploads) (item_id, item_name, description, date, committed) VALUES (?, ?, ?, ?, 0)",
                arguments: [item.itemID, item.itemName, item.description, item.date])
            return ((), (), false)
        }
        return item
    }

    /// `uploads/<itemID>/uploadPart`: stores (or replaces) part `partId` of a registered, uncommitted item.
    /// - Throws: ``ServiceError`` (404 unknown item, 400 committed item); `DatabaseError`; Foundation's file errors.
    func uploadPart(itemId: String, partId: Int, _ part: FilePart) throws {
        try checkOpen()
        let source = part.blobSource
        _ = try writeInTransaction(movingBlobs: true) { db -> (Void, Void, rollback: Bool) in
            let committed = try Self.uploadState(db, itemId)
            guard !committed else { throw ServiceError.invalidParameter("itemID", reason: "item '\(itemId)' is already committed") }
            try db.execute(
                sql: "INSERT OR REPLACE INTO \(AttachmentSchema.uploadParts) (item_id, part_id, size, data) VALUES (?, ?, ?, zeroblob(?))",
                arguments: [itemId, partId, part.size, part.size])
            try BlobIO.write(source, size: part.size, db: db, table: AttachmentSchema.uploadParts, column: "data", rowid: db.lastInsertedRowID)
            return ((), (), false)
        }
    }

    /// `uploads/<itemID>/commit`: joins the parts (`parts` in that order, or all in ascending order) into the item's
    /// bytes, chunk by chunk, and drops the parts.
    /// - Throws: ``ServiceError`` (404 unknown item; 400 committed item, no parts or a missing part; 413 when the joined
    ///   item is over `limit` bytes); `DatabaseError`.
    func commitUpload(itemId: String, parts requested: [Int]?, limit: Int) throws -> UploadItem {
        try checkOpen()
        let (item, _) = try writeInTransaction(movingBlobs: true) { db -> (UploadItem, Void, rollback: Bool) in
            guard try !Self.uploadState(db, itemId) else {
                throw ServiceError.invalidParameter("itemID", reason: "item '\(itemId)' is already committed")
            }
            var stored: [Int: (rowid: Int64, size: Int)] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT part_id, rowid, size FROM \(AttachmentSchema.uploadParts) WHERE item_id = ?", arguments: [itemId])
            {
                stored[row[0]] = (row[1], row[2])
            }
            let order = requested ?? stored.keys.sorted()
            guard !order.isEmpty else { throw ServiceError.invalidParameter("parts", reason: "item '\(itemId)' has no parts") }
            var total = 0
            for partId in order {
                guard let part = stored[partId] else { throw ServiceError.invalidParameter("parts", reason: "part \(partId) was not uploaded") }
                total += part.size
                guard total <= limit else { throw AttachmentLimit.tooLarge(limit: limit) }
            }
            try db.execute(
                sql: "UPDATE \(AttachmentSchema.uploads) SET committed = 1, size = ?, data = zeroblob(?) WHERE item_id = ?",
                arguments: [total, total, itemId])
            guard let rowid = try Int64.fetchOne(db, sql: "SELECT rowid FROM \(AttachmentSchema.uploads) WHERE item_id = ?", arguments: [itemId])
            else {
                throw ServiceError.notFound("Upload item '\(itemId)' does not exist.")
            }
            var offset = 0
            for partId in order {
                let part = stored[partId]!
                try BlobIO.write(
                    .blob(table: AttachmentSchema.uploadParts, column: "data", rowid: part.rowid), size: part.size, db: db,
                    table: AttachmentSchema.uploads, column: "data", rowid: rowid, at: offset)
                offset += part.size
            }
            try db.execute(sql: "DELETE FROM \(AttachmentSchema.uploadParts) WHERE item_id = ?", arguments: [itemId])
            guard let item = try Self.uploadItem(db, itemId) else { throw ServiceError.notFound("Upload item '\(itemId)' does not exist.") }
            return (item, (), false)
        }
        return item
    }

    /// `POST uploads/<itemID>/delete`: removes the item and its parts.
    /// - Throws: ``ServiceError`` (404 unknown item); `DatabaseError`.
    func deleteUpload(itemId: String) throws {
        try checkOpen()
        _ = try writeInTransaction(movingBlobs: true) { db -> (Void, Void, rollback: Bool) in
            _ = try Self.uploadState(db, itemId)
            try db.execute(sql: "DELETE FROM \(AttachmentSchema.uploadParts) WHERE item_id = ?", arguments: [itemId])
            try db.execute(sql: "DELETE FROM \(AttachmentSchema.uploads) WHERE item_id = ?", arguments: [itemId])
            return ((), (), false)
        }
    }

    /// `GET uploads/<itemID>`: the item, on a read connection.
    /// - Throws: ``ServiceError`` (404 unknown item); `DatabaseError`; `CancellationError`.
    nonisolated func uploadItem(itemId: String) async throws -> UploadItem {
        guard UploadItemID.isValid(itemId), let item = try await read({ db in try Self.uploadItem(db, itemId) }) else {
            throw ServiceError.notFound("Upload item '\(UploadItemID.printable(itemId))' does not exist.")
        }
        return item
    }

    /// `GET uploads/<itemID>/parts`: the ids of the parts received so far, ascending (empty once committed).
    /// - Throws: ``ServiceError`` (404 unknown item); `DatabaseError`; `CancellationError`.
    nonisolated func uploadParts(itemId: String) async throws -> [Int] {
        _ = try await uploadItem(itemId: itemId)
        return try await read { db in
            try Int.fetchAll(db, sql: "SELECT part_id FROM \(AttachmentSchema.uploadParts) WHERE item_id = ? ORDER BY part_id", arguments: [itemId])
        }
    }

    /// Whether item `itemId` is committed.
    /// - Throws: ``ServiceError`` (404) when there is no such item; `DatabaseError`.
    private static func uploadState(_ db: Database, _ itemId: String) throws -> Bool {
        guard UploadItemID.isValid(itemId),
            let committed = try Bool.fetchOne(db, sql: "SELECT committed FROM \(AttachmentSchema.uploads) WHERE item_id = ?", arguments: [itemId])
        else { throw ServiceError.notFound("Upload item '\(UploadItemID.printable(itemId))' does not exist.") }
        return committed
    }

    private static func uploadItem(_ db: Database, _ itemId: String) throws -> UploadItem? {
        let sql = "SELECT item_id, item_name, description, date, committed, size FROM \(AttachmentSchema.uploads) WHERE item_id = ?"
        guard let row = try Row.fetchOne(db, sql: sql, arguments: [itemId]) else { return nil }
        return UploadItem(itemID: row[0], itemName: row[1], description: row[2], date: row[3], committed: row[4], size: row[5])
    }
}
