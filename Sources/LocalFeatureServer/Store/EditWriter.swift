import FeatureModel
import GRDB
import SQLiteSupport

/// Applies one ``EditBatch`` to one layer inside an open transaction: adds, then updates, then attachment edits
/// (``AttachmentEdits``), then deletes.
///
/// Each edit is checked (``AttributeCoercion``, ``GeometryCoercion``), then written with a cached statement;
/// a failed edit becomes a `success: false` result and a line in ``failures``. The caller decides whether the
/// transaction commits (rollbackOnFailure=false, or no failures) or rolls back.
struct EditWriter {
    private let db: Database
    private let layer: LayerSchema
    private let schemas: [Int: LayerSchema]
    private let batch: EditBatch
    /// Position of each field in the insert's value list (nil for the object ID).
    private let insertPosition: [Int?]
    /// Value list of an insert before the feature's attributes are applied (defaults or NULL).
    private let insertDefaults: [SQLValue]
    /// Insert positions of non-nullable fields (GlobalID excluded: the server fills it).
    private let requiredPositions: [(position: Int, field: Int)]
    private(set) var globalIds: GlobalIDFactory
    /// One line per failed edit, e.g. `adds[2]: Field 'name' cannot be null. (code 1001)`.
    private(set) var failures: [String] = []

    init(db: Database, layer: LayerSchema, schemas: [Int: LayerSchema], batch: EditBatch, globalIds: GlobalIDFactory) {
        self.db = db
        self.globalIds = globalIds
        self.layer = layer
        self.schemas = schemas
        self.batch = batch
        var positions = [Int?](repeating: nil, count: layer.fields.count)
        var defaults: [SQLValue] = []
        var required: [(position: Int, field: Int)] = []
        for (position, fieldIndex) in layer.insertFields.enumerated() {
            positions[fieldIndex] = position
            let field = layer.fields[fieldIndex]
            if let defaultValue = field.defaultValue, case .success(let value) = AttributeCoercion.coerce(defaultValue, for: field) {
                defaults.append(value)
            } else {
                defaults.append(.null)
            }
            if !field.isNullable && fieldIndex != layer.globalIdField { required.append((position, fieldIndex)) }
        }
        switch layer.geometry {
        case .none: break
        case .point: defaults += [.null, .null]
        case .json: defaults.append(.null)
        }
        insertPosition = positions
        insertDefaults = defaults
        requiredPositions = required
    }

    /// Prefixed to every line of ``failures`` (e.g. `layer 1 ` in a service-level applyEdits).
    var labelPrefix = ""

    /// Applies the whole batch and returns the per-edit results.
    ///
    /// A batch with ``EditBatch/deleteWhere`` first selects the matching object IDs, inside the same transaction,
    /// and deletes them after the explicit ``EditBatch/deletes``.
    /// - Throws: `DatabaseError` for SQLite failures other than constraint violations (those become edit results).
    mutating func apply() throws -> ApplyEditsResult {
        var result = ApplyEditsResult()
        var deletes = batch.deletes
        if let filter = batch.deleteWhere {
            let oid = layer.column(layer.objectIdField)
            let sql = "SELECT \(oid) FROM \(layer.table) WHERE \(filter.sql) ORDER BY \(oid)"
            deletes += try Int64.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(filter.bindings)).map { .objectId($0) }
        }
        result.addResults.reserveCapacity(batch.adds.count)
        let injected = batch.injectedFailures
        for (index, edit) in batch.adds.enumerated() {
            if let error = injected?.failure(.add, index: index) {
                result.addResults.append(fail("adds[\(index)]", error))
                continue
            }
            result.addResults.append(try add(edit, label: "adds[\(index)]"))
        }
        for (index, edit) in batch.updates.enumerated() {
            if let error = injected?.failure(.update, index: index) {
                result.updateResults.append(fail("updates[\(index)]", error))
                continue
            }
            result.updateResults.append(try update(edit, label: "updates[\(index)]"))
        }
        if let attachments = batch.attachments { result.attachments = try apply(attachments) }
        for (index, key) in deletes.enumerated() {
            if let error = injected?.failure(.delete, index: index) {
                result.deleteResults.append(fail("deletes[\(index)]", error))
                continue
            }
            result.deleteResults.append(try delete(key, label: "deletes[\(index)]"))
        }
        return result
    }

    private mutating func fail(_ label: String, _ error: EditError, objectId: Int64? = nil, globalId: String? = nil) -> EditResult {
        failures.append("\(labelPrefix)\(label): \(error.description) (code \(error.code))")
        return EditResult(objectId: objectId, globalId: globalId, success: false, error: error)
    }

    private mutating func fail(_ label: String, _ code: Int, _ description: String, objectId: Int64? = nil, globalId: String? = nil) -> EditResult {
        fail(label, EditError(code: code, description: description), objectId: objectId, globalId: globalId)
    }

    // MARK: adds

    private mutating func add(_ edit: FeatureEdit, label: String) throws -> EditResult {
        var values = insertDefaults
        var submittedGlobalId: JSONValue?
        for (name, value) in edit.attributes {
            guard let fieldIndex = layer.fieldIndex(named: name) else {
                return fail(label, EditErrorCode.nonSpecific, "Field '\(name)' does not exist.")
            }
            if fieldIndex == layer.objectIdField { continue }  // assigned by the server
            if fieldIndex == layer.globalIdField {
                submittedGlobalId = value
                continue
            }
            let field = layer.fields[fieldIndex]
            guard field.isEditable else { return fail(label, EditErrorCode.fieldNotEditable, "Field '\(field.name)' is not editable.") }
            switch AttributeCoercion.coerce(value, for: field) {
            case .success(let stored): values[insertPosition[fieldIndex]!] = stored
            case .failure(let failure): return fail(label, failure.error)
            }
        }
        for (position, fieldIndex) in requiredPositions where values[position].isNull {
            return fail(label, EditErrorCode.notNullable, "Field '\(layer.fields[fieldIndex].name)' cannot be null.")
        }
        var globalId: String?
        if let globalIdField = layer.globalIdField {
            if batch.useGlobalIds, let submitted = submittedGlobalId, !submitted.isNull {
                guard let text = submitted.stringValue, let normalized = GlobalID.normalized(text) else {
                    return fail(label, EditErrorCode.globalIdInvalid, "GlobalID \(submitted) is not a valid GUID.")
                }
                globalId = normalized
            } else {
                globalId = globalIds.make()
            }
            values[insertPosition[globalIdField]!] = .text(globalId!)
        }
        var bounds: ShapeBounds?
        if let geometry = edit.geometry, layer.geometry != .none {
            switch GeometryCoercion.coerce(geometry, storage: layer.geometry, type: layer.info.geometryType) {
            case .failure(let failure): return fail(label, failure.error, globalId: globalId)
            case .success(.point(let x, let y)):
                values[values.count - 2] = .real(x)
                values[values.count - 1] = .real(y)
            case .success(.json(let text, let box)):
                values[values.count - 1] = .text(text)
                bounds = box
            case .success(.empty): break
            }
        }
        do {
            let statement = try db.cachedStatement(sql: layer.insertSQL)
            try statement.execute(binding: values)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            return fail(
                label,
                EditErrorCode.uniqueConstraint,
                "Unique constraint violation: GlobalID \(globalId ?? "") already exists.",
                globalId: globalId
            )
        }
        let objectId = db.lastInsertedRowID
        if let bounds { try ShapeIndex.insert(bounds, objectId: objectId, layer: layer, db: db) }
        return EditResult(objectId: objectId, globalId: globalId, success: true)
    }

    // MARK: updates

    private mutating func update(_ edit: FeatureEdit, label: String) throws -> EditResult {
        var objectId: Int64?
        var submittedGlobalId: JSONValue?
        var assignments: [(field: Int, value: SQLValue)] = []
        for (name, value) in edit.attributes {
            guard let fieldIndex = layer.fieldIndex(named: name) else {
                return fail(label, EditErrorCode.nonSpecific, "Field '\(name)' does not exist.")
            }
            if fieldIndex == layer.objectIdField {
                objectId = value.intValue
                continue
            }
            if fieldIndex == layer.globalIdField {
                submittedGlobalId = value
                continue
            }
            let field = layer.fields[fieldIndex]
            guard field.isEditable else {
                return fail(label, EditErrorCode.fieldNotEditable, "Field '\(field.name)' is not editable.", objectId: objectId)
            }
            switch AttributeCoercion.coerce(value, for: field) {
            case .success(let stored): assignments.append((fieldIndex, stored))
            case .failure(let failure): return fail(label, failure.error, objectId: objectId)
            }
        }
        let key: DeleteKey
        if batch.useGlobalIds, let submitted = submittedGlobalId, !submitted.isNull {
            guard let text = submitted.stringValue, let normalized = GlobalID.normalized(text) else {
                return fail(label, EditErrorCode.globalIdInvalid, "GlobalID \(submitted) is not a valid GUID.", objectId: objectId)
            }
            key = .globalId(normalized)
        } else if let objectId {
            key = .objectId(objectId)
        } else if batch.useGlobalIds {
            return fail(label, EditErrorCode.globalIdMissing, "Update has no GlobalID.")
        } else {
            return fail(label, EditErrorCode.nonSpecific, "Update has no \(layer.fields[layer.objectIdField].name).")
        }
        assignments.sort { $0.field < $1.field }
        var columns = assignments.map { layer.column($0.field) }
        var values = assignments.map(\.value)
        /// The new bounds when the geometry changes (the outer nil: it does not).
        var bounds: ShapeBounds??
        if let geometry = edit.geometry, layer.geometry != .none {
            switch GeometryCoercion.coerce(geometry, storage: layer.geometry, type: layer.info.geometryType) {
            case .failure(let failure): return fail(label, failure.error, objectId: objectId)
            case .success(let stored): bounds = assign(stored, columns: &columns, values: &values)
            }
        }
        guard let (condition, keyValue) = keyCondition(key) else {
            return fail(label, EditErrorCode.nonSpecific, "Layer \(layer.info.id) has no GlobalID field.", objectId: objectId)
        }
        values.append(keyValue)
        let sql: String
        if columns.isEmpty {
            sql = "SELECT \(layer.returningSQL) FROM \(layer.table) WHERE \(condition)"
        } else {
            let set = columns.map { "\($0) = ?" }.joined(separator: ", ")
            sql = "UPDATE \(layer.table) SET \(set) WHERE \(condition) RETURNING \(layer.returningSQL)"
        }
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(values)) else {
            return fail(label, EditErrorCode.objectMissing, "Object is missing.", objectId: objectId, globalId: key.globalId)
        }
        if let bounds, ShapeIndex.isIndexed(layer) { try ShapeIndex.replace(bounds, objectId: row[0], layer: layer, db: db) }
        return EditResult(objectId: row[0], globalId: row[1], success: true)
    }

    /// Adds the geometry columns of `stored` to an update; returns its new bounds for the spatial index (nil: no
    /// index entry changes, a point layer's).
    private func assign(_ stored: GeometryCoercion.Stored, columns: inout [String], values: inout [SQLValue]) -> ShapeBounds?? {
        switch stored {
        case .point(let x, let y):
            columns += [LayerSchema.xColumn, LayerSchema.yColumn]
            values += [.real(x), .real(y)]
            return nil
        case .json(let text, let box):
            columns.append(LayerSchema.jsonColumn)
            values.append(.text(text))
            return .some(box)
        case .empty where layer.geometry == .point:
            columns += [LayerSchema.xColumn, LayerSchema.yColumn]
            values += [.null, .null]
            return nil
        case .empty:
            columns.append(LayerSchema.jsonColumn)
            values.append(.null)
            return .some(nil)
        }
    }

    // MARK: attachments

    /// Applies the batch's attachment edits after its adds and updates (so a parent added in this request exists).
    /// - Throws: ``ServiceError`` (400) without `useGlobalIds` or on a layer without attachments; `DatabaseError`.
    private mutating func apply(_ attachments: AttachmentEdits) throws -> AttachmentEditResults {
        guard layer.info.hasAttachments == true else {
            throw ServiceError.invalidParameter("attachments", reason: "layer \(layer.info.id) does not support attachments")
        }
        var writer = AttachmentWriter(db: db, layer: layer, globalIds: globalIds)
        var lines: [String] = []
        let results = try attachments.apply(with: &writer, useGlobalIds: batch.useGlobalIds, failures: &lines)
        globalIds = writer.globalIds
        failures += lines.map { labelPrefix + $0 }
        return results
    }

    // MARK: deletes

    private mutating func delete(_ key: DeleteKey, label: String) throws -> EditResult {
        var key = key
        if case .globalId(let text) = key {
            guard let normalized = GlobalID.normalized(text) else {
                return fail(label, EditErrorCode.globalIdInvalid, "GlobalID '\(text)' is not a valid GUID.")
            }
            key = .globalId(normalized)
        }
        guard let (condition, keyValue) = keyCondition(key) else {
            return fail(label, EditErrorCode.nonSpecific, "Layer \(layer.info.id) has no GlobalID field.")
        }
        let sql = "DELETE FROM \(layer.table) WHERE \(condition) RETURNING \(layer.returningSQL)"
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [keyValue.databaseValue]) else {
            return fail(label, EditErrorCode.objectMissing, "Object is missing.", objectId: key.objectId, globalId: key.globalId)
        }
        try deleteRelated(from: layer, deleted: row, depth: 0)
        return EditResult(objectId: row[0], globalId: row[1], success: true)
    }

    /// Applies the layer's delete rules to the rows related to `deleted`: cascades (recursively), nulled keys,
    /// removed many-to-many links.
    private func deleteRelated(from origin: LayerSchema, deleted: Row, depth: Int) throws {
        guard depth < 8 else { return }
        for (index, rule) in origin.deleteRules.enumerated() {
            let keyValue: DatabaseValue = deleted[2 + index]
            guard !keyValue.isNull, let target = schemas[rule.targetLayerId] else { continue }
            switch rule.action {
            case .setNull:
                let sql = "UPDATE \(target.table) SET \(rule.targetColumn) = NULL WHERE \(rule.targetColumn) = ?"
                try db.cachedStatement(sql: sql).execute(arguments: [keyValue])
            case .delete where target.deleteRules.isEmpty:
                try db.cachedStatement(sql: "DELETE FROM \(target.table) WHERE \(rule.targetColumn) = ?").execute(arguments: [keyValue])
            case .delete:
                let sql = "DELETE FROM \(target.table) WHERE \(rule.targetColumn) = ? RETURNING \(target.returningSQL)"
                let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: [keyValue])
                for row in rows { try deleteRelated(from: target, deleted: row, depth: depth + 1) }
            }
        }
    }

    /// The `WHERE` condition addressing `key`, or nil when the layer cannot be addressed that way.
    private func keyCondition(_ key: DeleteKey) -> (String, SQLValue)? {
        switch key {
        case .objectId(let objectId): return ("\(layer.column(layer.objectIdField)) = ?", .integer(objectId))
        case .globalId(let globalId):
            guard let globalIdField = layer.globalIdField else { return nil }
            return ("\(layer.column(globalIdField)) = ?", .text(globalId))
        }
    }
}

extension DeleteKey {
    fileprivate var objectId: Int64? {
        if case .objectId(let value) = self { return value }
        return nil
    }

    fileprivate var globalId: String? {
        if case .globalId(let value) = self { return value }
        return nil
    }
}
