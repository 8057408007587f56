import FeatureModel
import Foundation

/// The `attachments` member of an applyEdits request (arcgis-rest.md §3), applied with the feature edits of its
/// layer in the same transaction. Only honoured with `useGlobalIds=true`: attachments and parents are addressed by
/// GlobalID, and a parent may be a feature added earlier in the same request.
///
/// ```json
/// {"adds":[{"globalId":"{…}","parentGlobalId":"{…}","contentType":"image/jpeg","name":"a.jpg","uploadId":"i…"},
///          {"globalId":"{…}","parentGlobalId":"{…}","contentType":"text/plain","name":"b.txt","data":"<base64>"}],
///  "updates":[{"globalId":"{…}","name":"c.jpg","uploadId":"i…"}],
///  "deletes":["{…}"]}
/// ```
struct AttachmentEdits: Sendable, Hashable {
    /// One add: the attachment's GlobalID (kept; nil → the server's), its parent's, and its content.
    struct Add: Sendable, Hashable {
        var globalId: String?
        var parentGlobalId: String
        var content: AttachmentContent
    }

    /// One update: the attachment's GlobalID and the members to change.
    struct Update: Sendable, Hashable {
        var globalId: String
        var content: AttachmentContent
    }

    var adds: [Add] = []
    var updates: [Update] = []
    /// GlobalIDs of attachments to delete.
    var deletes: [String] = []

    /// Reads the JSON text of an `attachments` parameter.
    /// - Throws: ``ServiceError`` (400) naming `parameter` and the element at fault.
    static func parse(_ text: String, parameter: String) throws(ServiceError) -> AttachmentEdits {
        let json: JSONValue
        do {
            json = try JSONReader.parse(text)
        } catch {
            throw ServiceError.invalidParameter(parameter, reason: "not valid JSON: \(error)")
        }
        return try parse(json: json, parameter: parameter)
    }

    /// Reads a parsed `attachments` object.
    /// - Throws: ``ServiceError`` (400) naming `parameter` and the element at fault.
    static func parse(json: JSONValue, parameter: String) throws(ServiceError) -> AttachmentEdits {
        guard case .object(let members) = json else {
            throw ServiceError.invalidParameter(parameter, reason: "expected an object with adds, updates and deletes")
        }
        var edits = AttachmentEdits()
        for (index, item) in try array(members["adds"], "\(parameter).adds").enumerated() {
            let label = "\(parameter).adds[\(index)]"
            guard case .object(let fields) = item else { throw ServiceError.invalidParameter(label, reason: "not an object") }
            guard let parent = fields["parentGlobalId"]?.stringValue else {
                throw ServiceError.invalidParameter(label, reason: "'parentGlobalId' is required")
            }
            edits.adds.append(Add(globalId: fields["globalId"]?.stringValue, parentGlobalId: parent, content: try content(fields, label)))
        }
        for (index, item) in try array(members["updates"], "\(parameter).updates").enumerated() {
            let label = "\(parameter).updates[\(index)]"
            guard case .object(let fields) = item else { throw ServiceError.invalidParameter(label, reason: "not an object") }
            guard let globalId = fields["globalId"]?.stringValue else { throw ServiceError.invalidParameter(label, reason: "'globalId' is required") }
            edits.updates.append(Update(globalId: globalId, content: try content(fields, label)))
        }
        for (index, item) in try array(members["deletes"], "\(parameter).deletes").enumerated() {
            guard let globalId = item.stringValue else {
                throw ServiceError.invalidParameter("\(parameter).deletes[\(index)]", reason: "not a GlobalID string")
            }
            edits.deletes.append(globalId)
        }
        return edits
    }

    /// Number of attachment edits.
    var count: Int { adds.count + updates.count + deletes.count }

    private static func array(_ value: JSONValue?, _ label: String) throws(ServiceError) -> [JSONValue] {
        switch value {
        case nil, .null?: return []
        case .array(let items)?: return items
        case .string(let text)? where label.hasSuffix(".deletes"): return AttachmentQuery.list(text).map { .string($0) }
        default: throw ServiceError.invalidParameter(label, reason: "expected an array")
        }
    }

    private static func content(_ fields: [String: JSONValue], _ label: String) throws(ServiceError) -> AttachmentContent {
        var content = AttachmentContent(
            name: fields["name"]?.stringValue, contentType: fields["contentType"]?.stringValue, keywords: fields["keywords"]?.stringValue)
        if let uploadId = fields["uploadId"]?.stringValue, !uploadId.isEmpty {
            content.source = .upload(itemId: uploadId)
        } else if let text = fields["data"]?.stringValue {
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw ServiceError.invalidParameter(label, reason: "'data' is not base64")
            }
            content.source = .bytes(Array(data))
        }
        if content.contentType == nil, let name = content.name { content.contentType = AttachmentName.contentType(forName: name) }
        return content
    }

    /// Applies the edits with `writer` (adds, then updates, then deletes), inside the caller's transaction.
    ///
    /// Returns the results, each with its GlobalID; appends a line per failed edit to `failures`.
    /// - Throws: ``ServiceError`` (400) without `useGlobalIds`; `DatabaseError`; Foundation's file errors.
    func apply(with writer: inout AttachmentWriter, useGlobalIds: Bool, failures: inout [String]) throws -> AttachmentEditResults {
        guard useGlobalIds else {
            throw ServiceError.invalidParameter("attachments", reason: "attachment edits need useGlobalIds=true")
        }
        var results = AttachmentEditResults()
        func record(_ result: EditResult, _ label: String) -> EditResult {
            if let error = result.error { failures.append("attachments.\(label): \(error.description) (code \(error.code))") }
            return result
        }
        for (index, add) in adds.enumerated() {
            let label = "adds[\(index)]"
            guard let parent = try writer.parent(globalId: add.parentGlobalId) else {
                let description = "Parent feature \(add.parentGlobalId) does not exist in layer \(writer.layer.info.id)."
                results.addResults.append(
                    record(.failure(globalId: add.globalId, code: EditErrorCode.objectMissing, description: description), label))
                continue
            }
            results.addResults.append(record(try writer.add(parentObjectId: parent, content: add.content, globalId: add.globalId), label))
        }
        for (index, update) in updates.enumerated() {
            results.updateResults.append(
                record(try writer.update(.globalId(update.globalId), parentObjectId: nil, content: update.content), "updates[\(index)]"))
        }
        for (index, globalId) in deletes.enumerated() {
            results.deleteResults.append(record(try writer.delete(.globalId(globalId), parentObjectId: nil), "deletes[\(index)]"))
        }
        return results
    }
}
