import FeatureModel
import GRDB

/// The SQLite layout of attachments and uploaded items, next to the layer tables in the service's database.
///
/// - `featureload_attachments`: one row per attachment (`id` never reused), its parent `(layer_id,
///   parent_object_id)`, metadata, and the bytes in `data` (a BLOB written and read in chunks through SQLite's
///   incremental BLOB I/O, so a large file is never whole in memory). `revision` rises whenever the bytes change, so
///   a download read in chunks notices a concurrent update.
/// - one `AFTER DELETE` trigger per layer with attachments deletes a feature's attachments with it, whichever path
///   deletes the feature (applyEdits, deleteFeatures by `where`, composite cascades) and in the same transaction.
/// - `featureload_uploads` and `featureload_upload_parts`: items of the `uploads` resource and their parts.
///
/// Client-supplied names never reach the file system: everything lives in the database file.
enum AttachmentSchema {
    static let attachments = "featureload_attachments"
    static let uploads = "featureload_uploads"
    static let uploadParts = "featureload_upload_parts"

    /// Creates the tables, indexes and triggers that are missing (new and existing database files alike).
    /// - Throws: `DatabaseError`.
    static func prepare(pool: DatabasePool, schemas: [Int: LayerSchema]) throws {
        try pool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS \(attachments) (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        layer_id INTEGER NOT NULL,
                        parent_object_id INTEGER NOT NULL,
                        global_id TEXT NOT NULL UNIQUE,
                        name TEXT NOT NULL,
                        content_type TEXT NOT NULL,
                        keywords TEXT NOT NULL DEFAULT '',
                        size INTEGER NOT NULL,
                        revision INTEGER NOT NULL DEFAULT 0,
                        data BLOB NOT NULL);
                    CREATE INDEX IF NOT EXISTS \(attachments)_parent ON \(attachments) (layer_id, parent_object_id);
                    CREATE TABLE IF NOT EXISTS \(uploads) (
                        item_id TEXT PRIMARY KEY NOT NULL,
                        item_name TEXT NOT NULL,
                        description TEXT NOT NULL DEFAULT '',
                        date INTEGER NOT NULL,
                        committed INTEGER NOT NULL,
                        size INTEGER,
                        data BLOB);
                    CREATE TABLE IF NOT EXISTS \(uploadParts) (
                        item_id TEXT NOT NULL,
                        part_id INTEGER NOT NULL,
                        size INTEGER NOT NULL,
                        data BLOB NOT NULL,
                        PRIMARY KEY (item_id, part_id));
                    """)
            for schema in schemas.values where schema.info.hasAttachments == true {
                let trigger = SQLFragment.quoted("\(attachments)_of_layer_\(schema.info.id)")
                try db.execute(
                    sql: """
                        CREATE TRIGGER IF NOT EXISTS \(trigger) AFTER DELETE ON \(schema.table) BEGIN
                            DELETE FROM \(attachments) WHERE layer_id = \(schema.info.id)
                                AND parent_object_id = OLD.\(schema.column(schema.objectIdField));
                        END
                        """)
            }
        }
    }
}
