import FeatureModel

extension EditBatch {
    /// Reads a layer-level applyEdits request from its parameters.
    ///
    /// `adds`/`updates`: a JSON array of `{attributes, geometry}`; `deletes`: `1,2`, `[1,2]`, or GlobalIDs (a comma
    /// list or a JSON array of strings) with `useGlobalIds=true`; `attachments` (``AttachmentEdits``, with
    /// `useGlobalIds=true`); `rollbackOnFailure` (default true),
    /// `useGlobalIds` (default false), `returnEditMoment` (default false). Other parameters are ignored.
    /// - Throws: ``ServiceError`` (400) naming the parameter that is not valid JSON or not of the expected shape.
    static func parse(_ parameters: RequestParameters) throws(ServiceError) -> EditBatch {
        var batch = EditBatch()
        batch.rollbackOnFailure = try parameters.bool("rollbackOnFailure", default: true)
        batch.useGlobalIds = try parameters.bool("useGlobalIds", default: false)
        batch.returnEditMoment = try parameters.bool("returnEditMoment", default: false)
        if let text = parameters["adds"] { batch.adds = try features(text, parameter: "adds") }
        if let text = parameters["updates"] { batch.updates = try features(text, parameter: "updates") }
        if let text = parameters["deletes"] { batch.deletes = try deletes(text, useGlobalIds: batch.useGlobalIds) }
        if let text = parameters["attachments"] { batch.attachments = try AttachmentEdits.parse(text, parameter: "attachments") }
        return batch
    }

    /// The features of `text`, a JSON array of `{attributes, geometry}` (a single object is accepted too).
    /// - Throws: ``ServiceError`` (400) naming `parameter` when the text is not JSON of that shape.
    static func features(_ text: String, parameter: String) throws(ServiceError) -> [FeatureEdit] {
        let json: JSONValue
        do {
            json = try JSONReader.parse(text)
        } catch {
            throw ServiceError.invalidParameter(parameter, reason: "not valid JSON: \(error)")
        }
        return try features(json: json, parameter: parameter)
    }

    /// The features of an already parsed JSON array of `{attributes, geometry}`.
    /// - Throws: ``ServiceError`` (400) naming `parameter` when the value is not of that shape.
    static func features(json: JSONValue, parameter: String) throws(ServiceError) -> [FeatureEdit] {
        let items: [JSONValue]
        switch json {
        case .array(let array): items = array
        case .object: items = [json]
        default: throw ServiceError.invalidParameter(parameter, reason: "expected a JSON array of features")
        }
        var edits: [FeatureEdit] = []
        edits.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .object(let members) = item else {
                throw ServiceError.invalidParameter(parameter, reason: "element \(index) is not a feature object")
            }
            var attributes: [String: JSONValue] = [:]
            switch members["attributes"] {
            case .object(let values)?: attributes = values
            case nil, .null?: break
            default: throw ServiceError.invalidParameter(parameter, reason: "element \(index) has 'attributes' that is not an object")
            }
            edits.append(FeatureEdit(attributes: attributes, geometry: members["geometry"]))
        }
        return edits
    }

    /// Delete keys from `1,2`, `[1,2]` or GlobalIDs (with `useGlobalIds`).
    /// - Throws: ``ServiceError`` (400) naming `parameter` for an item that is neither.
    static func deletes(_ text: String, useGlobalIds: Bool, parameter: String = "deletes") throws(ServiceError) -> [DeleteKey] {
        let trimmed = text.trimmed
        if trimmed.hasPrefix("[") {
            guard let json = try? JSONReader.parse(trimmed) else {
                throw ServiceError.invalidParameter(parameter, reason: "not a valid JSON array")
            }
            return try deletes(json: json, useGlobalIds: useGlobalIds, parameter: parameter)
        }
        return try deleteKeys(
            trimmed.split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty }, useGlobalIds: useGlobalIds, parameter: parameter)
    }

    /// Delete keys from a parsed JSON array of object IDs or GlobalID strings, or a comma-separated string.
    /// - Throws: ``ServiceError`` (400) naming `parameter` for an item that is neither.
    static func deletes(json: JSONValue, useGlobalIds: Bool, parameter: String) throws(ServiceError) -> [DeleteKey] {
        var items: [String] = []
        switch json {
        case .string(let text): return try deletes(text, useGlobalIds: useGlobalIds, parameter: parameter)
        case .int(let objectId): return [.objectId(objectId)]
        case .array(let array):
            for value in array {
                if let integer = value.intValue {
                    items.append(String(integer))
                } else if let string = value.stringValue {
                    items.append(string)
                } else {
                    throw ServiceError.invalidParameter(parameter, reason: "\(value) is neither an object ID nor a GlobalID")
                }
            }
        default: throw ServiceError.invalidParameter(parameter, reason: "expected a list of object IDs or GlobalIDs")
        }
        return try deleteKeys(items, useGlobalIds: useGlobalIds, parameter: parameter)
    }

    private static func deleteKeys(_ items: [String], useGlobalIds: Bool, parameter: String) throws(ServiceError) -> [DeleteKey] {
        var keys: [DeleteKey] = []
        keys.reserveCapacity(items.count)
        for item in items {
            if let objectId = Int64(item) {
                keys.append(.objectId(objectId))
            } else if useGlobalIds {
                keys.append(.globalId(item))
            } else {
                throw ServiceError.invalidParameter(parameter, reason: "'\(item)' is not an object ID (GlobalIDs need useGlobalIds=true)")
            }
        }
        return keys
    }
}
