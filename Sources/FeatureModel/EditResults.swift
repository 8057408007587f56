/// The error of one failed edit inside an applyEdits answer.
public struct EditError: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The ArcGIS edit error code, such as 1000 (a bad value), 1011 (no such feature) or 1022 (a duplicate GlobalID).
    public var code: Int
    /// The service's explanation.
    public var description: String
    /// A finer-grained numeric code some services add.
    public var extendedCode: Int64?

    package init(code: Int, description: String, extendedCode: Int64? = nil) {
        self.code = code
        self.description = description
        self.extendedCode = extendedCode
    }
}

/// The result of one edit: `{objectId, globalId?, success, error?}`.
///
/// A failed add may carry `objectId: -1` or none at all.
public struct EditResult: Sendable, Hashable, Codable {
    /// The object ID of the edited feature; a failed add may carry -1 or none.
    public var objectId: Int64?
    /// The feature's GlobalID, when the layer has one.
    public var globalId: String? {
        get { storedGlobalId?.text }
        set { storedGlobalId = newValue.map(AnswerText.init) }
    }
    /// Whether the edit was applied.
    public var success: Bool
    /// Why the edit failed; nil on success.
    public var error: EditError?
    /// A result read from an answer keeps its GlobalID as the answer's bytes until asked for it.
    private var storedGlobalId: AnswerText?

    package init(objectId: Int64?, globalId: String? = nil, success: Bool, error: EditError? = nil) {
        self.objectId = objectId
        self.storedGlobalId = globalId.map(AnswerText.init)
        self.success = success
        self.error = error
    }

    /// A result whose GlobalID is the text of `globalId`, a slice of the answer (no escapes in it).
    init(objectId: Int64?, globalIdBytes globalId: ArraySlice<UInt8>?, success: Bool) {
        self.objectId = objectId
        self.storedGlobalId = globalId.map(AnswerText.init)
        self.success = success
        self.error = nil
    }

    private enum CodingKeys: String, CodingKey { case objectId, globalId, success, error }

    /// Decodes the result from its JSON object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        objectId = try container.decodeIfPresent(Int64.self, forKey: .objectId)
        storedGlobalId = try container.decodeIfPresent(String.self, forKey: .globalId).map(AnswerText.init)
        success = try container.decode(Bool.self, forKey: .success)
        error = try container.decodeIfPresent(EditError.self, forKey: .error)
    }

    /// Encodes the result as its JSON object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(objectId, forKey: .objectId)
        try container.encodeIfPresent(globalId, forKey: .globalId)
        try container.encode(success, forKey: .success)
        try container.encodeIfPresent(error, forKey: .error)
    }

    /// A failure with the given ArcGIS edit error code.
    package static func failure(objectId: Int64? = nil, globalId: String? = nil, code: Int, description: String) -> EditResult {
        EditResult(objectId: objectId, globalId: globalId, success: false, error: EditError(code: code, description: description))
    }
}

/// Results of attachment edits carried in applyEdits' `attachments` member.
public struct AttachmentEditResults: Sendable, Hashable, Codable {
    /// One result per attachment add, in request order.
    public var addResults: [EditResult]
    /// One result per attachment update, in request order.
    public var updateResults: [EditResult]
    /// One result per attachment delete, in request order.
    public var deleteResults: [EditResult]

    package init(addResults: [EditResult] = [], updateResults: [EditResult] = [], deleteResults: [EditResult] = []) {
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
    /// One result per add, in request order.
    public var addResults: [EditResult]
    /// One result per update, in request order.
    public var updateResults: [EditResult]
    /// One result per delete, in request order.
    public var deleteResults: [EditResult]
    /// The results of the attachment edits sent with the features, when there were any.
    public var attachments: AttachmentEditResults?
    /// When the service applied the edits, in epoch milliseconds; set when the request asked for it.
    public var editMoment: Int64?

    package init(
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

    /// Decodes the answer from its JSON object; missing result arrays read as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeIfPresent(Int.self, forKey: .id)
        addResults = try c.decodeIfPresent([EditResult].self, forKey: .addResults) ?? []
        updateResults = try c.decodeIfPresent([EditResult].self, forKey: .updateResults) ?? []
        deleteResults = try c.decodeIfPresent([EditResult].self, forKey: .deleteResults) ?? []
        attachments = try c.decodeIfPresent(AttachmentEditResults.self, forKey: .attachments)
        editMoment = try c.decodeIfPresent(Int64.self, forKey: .editMoment)
    }

    /// Encodes the answer as its JSON object, the three result arrays always included.
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

/// Text from an answer, kept as the answer's UTF-8 bytes until it is read: the load generator reads an answer of 100
/// adds per request and never looks at their GlobalIDs, which as strings cost an allocation each (38 bytes, past what a
/// string holds inline). The slice shares the answer's storage, which stays alive while the result does; keep the
/// `globalId` string rather than the result to hold a GlobalID for long. Equal, and hashed, by its text.
struct AnswerText: Sendable, Hashable {
    private enum Storage: Sendable {
        case string(String)
        case bytes(ArraySlice<UInt8>)
    }

    private let storage: Storage

    init(_ text: String) { storage = .string(text) }

    init(_ bytes: ArraySlice<UInt8>) { storage = .bytes(bytes) }

    var text: String {
        switch storage {
        case .string(let text): return text
        case .bytes(let bytes): return String(decoding: bytes, as: UTF8.self)
        }
    }

    static func == (left: AnswerText, right: AnswerText) -> Bool { left.text == right.text }

    func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
