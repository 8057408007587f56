/// One attachment of a feature, as `…/<layer>/<oid>/attachments` and `queryAttachments` list it.
///
/// ```json
/// {"id":1,"globalId":"{…}","parentGlobalId":"{…}","name":"a.jpg","contentType":"image/jpeg","size":45325,"keywords":""}
/// ```
/// `id` is the attachment id, unique within its layer; `size` is in bytes.
public struct AttachmentInfo: Sendable, Hashable, Codable {
    public var id: Int64
    public var globalId: String?
    /// The GlobalID of the feature the attachment belongs to (listed by `queryAttachments`).
    public var parentGlobalId: String?
    public var name: String
    public var contentType: String
    public var size: Int64
    public var keywords: String?

    public init(
        id: Int64, globalId: String? = nil, parentGlobalId: String? = nil, name: String, contentType: String, size: Int64,
        keywords: String? = ""
    ) {
        self.id = id
        self.globalId = globalId
        self.parentGlobalId = parentGlobalId
        self.name = name
        self.contentType = contentType
        self.size = size
        self.keywords = keywords
    }
}

/// The answer to `…/<layer>/<oid>/attachments`: `{"attachmentInfos":[…]}`.
public struct AttachmentInfosResponse: Sendable, Hashable, Codable {
    public var attachmentInfos: [AttachmentInfo]

    public init(attachmentInfos: [AttachmentInfo]) { self.attachmentInfos = attachmentInfos }
}

/// The attachments of one feature in a `queryAttachments` answer.
///
/// With `returnCountOnly=true` the group carries `count` instead of `attachmentInfos` (the arcgis Python client reads
/// `attachmentGroups[].count`).
public struct AttachmentGroup: Sendable, Hashable, Codable {
    public var parentObjectId: Int64
    public var parentGlobalId: String?
    public var attachmentInfos: [AttachmentInfo]?
    public var count: Int?

    public init(parentObjectId: Int64, parentGlobalId: String? = nil, attachmentInfos: [AttachmentInfo]? = nil, count: Int? = nil) {
        self.parentObjectId = parentObjectId
        self.parentGlobalId = parentGlobalId
        self.attachmentInfos = attachmentInfos
        self.count = count
    }
}

/// The answer to `…/<layer>/queryAttachments`: `{"attachmentGroups":[…]}` (features without matching attachments are
/// left out).
public struct AttachmentGroupsResponse: Sendable, Hashable, Codable {
    public var attachmentGroups: [AttachmentGroup]
    /// True when paging (`resultRecordCount`) left attachments out.
    public var exceededTransferLimit: Bool?

    public init(attachmentGroups: [AttachmentGroup], exceededTransferLimit: Bool? = nil) {
        self.attachmentGroups = attachmentGroups
        self.exceededTransferLimit = exceededTransferLimit
    }
}

/// One entry of a layer's `attachmentProperties`: which attachment property the layer reports (`{name, isEnabled}`).
public struct AttachmentProperty: Sendable, Hashable, Codable {
    public var name: String
    public var isEnabled: Bool

    public init(name: String, isEnabled: Bool) {
        self.name = name
        self.isEnabled = isEnabled
    }

    /// The properties every attachment of this service carries: `name`, `size`, `contentType`, `keywords`, `globalId`
    /// (`exifInfo` is not kept).
    public static let standard: [AttachmentProperty] = [
        AttachmentProperty(name: "name", isEnabled: true),
        AttachmentProperty(name: "size", isEnabled: true),
        AttachmentProperty(name: "contentType", isEnabled: true),
        AttachmentProperty(name: "keywords", isEnabled: true),
        AttachmentProperty(name: "exifInfo", isEnabled: false),
    ]
}
