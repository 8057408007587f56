/// The error of one failed edit inside an applyEdits answer.
public struct EditError: Sendable, Hashable, Codable, CustomStringConvertible {
    public var code: Int
    public var description: String
    public var extendedCode: Int64?

    public init(code: Int, description: String, extendedCode: Int64? = nil) {
        self.code = code
        self.description = description
        self.extendedCode = extendedCode
    }
}

/// The result of one edit: `{objectId, globalId?, success, error?}`.
///
/// A failed add may carry `objectId: -1` or none at all.
public struct EditResult: Sendable, Hashable, Codable {
    public var objectId: Int64?
    public var globalId: String?
    public var success: Bool
    public var error: EditError?

    public init(objectId: Int64?, globalId: String? = nil, success: Bool, error: EditError? = nil) {
        self.objectId = objectId
        self.globalId = globalId
        self.success = success
        self.error = error
    }

    /// A failure with the given ArcGIS edit error code.
    public static func failure(objectId: Int64? = nil, globalId: String? = nil, code: Int, description: String) -> EditResult {
        EditResult(objectId: objectId, globalId: globalId, success: false, error: EditError(code: code, description: description))
    }
}

/// Results of attachment edits carried in applyEdits' `attachments` member.
public struct AttachmentEditResults: Sendable, Hashable, Codable {
    public var addResults: [EditResult]
    public var updateResults: [EditResult]
    public var deleteResults: [EditResult]

    public init(addResults: [EditResult] = [], updateResults: [EditResult] = [], deleteResults: [EditResult] = []) {
        self.addResults = addResults
        self.updateResults = updateResults
        self.deleteResults = deleteResults
    }
}

/// The answer to a layer-level applyEdits (and, with `id`, one element of a service-level answer).
///
/// The three result arrays are always present on the wire, even when empty.
public struct ApplyEditsResult: Sendable, Hashable, Codable {
    /// The layer id; set in service-level answers only.
    public var id: Int?
    public var addResults: [EditResult]
    public var updateResults: [EditResult]
    public var deleteResults: [EditResult]
    public var attachments: AttachmentEditResults?
    public var editMoment: Int64?

    public init(
        id: Int? = nil, addResults: [EditResult] = [], updateResults: [EditResult] = [],
        deleteResults: [EditResult] = [], attachments: AttachmentEditResults? = nil, editMoment: Int64? = nil
    ) {
        self.id = id
        self.addResults = addResults
        self.updateResults = updateResults
        self.deleteResults = deleteResults
        self.attachments = attachments
        self.editMoment = editMoment
    }

    private enum CodingKeys: String, CodingKey { case id, addResults, updateResults, deleteResults, attachments, editMoment }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeIfPresent(Int.self, forKey: .id)
        addResults = try c.decodeIfPresent([EditResult].self, forKey: .addResults) ?? []
        updateResults = try c.decodeIfPresent([EditResult].self, forKey: .updateResults) ?? []
        deleteResults = try c.decodeIfPresent([EditResult].self, forKey: .deleteResults) ?? []
        attachments = try c.decodeIfPresent(AttachmentEditResults.self, forKey: .attachments)
        editMoment = try c.decodeIfPresent(Int64.self, forKey: .editMoment)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encode(addResults, forKey: .addResults)
        try c.encode(updateResults, forKey: .updateResults)
        try c.encode(deleteResults, forKey: .deleteResults)
        try c.encodeIfPresent(attachments, forKey: .attachments)
        try c.encodeIfPresent(editMoment, forKey: .editMoment)
    }

    /// Every per-edit result that reports `success: false`.
    public var failures: [EditResult] {
        (addResults + updateResults + deleteResults).filter { !$0.success }
            + (attachments.map { ($0.addResults + $0.updateResults + $0.deleteResults).filter { !$0.success } } ?? [])
    }
}
