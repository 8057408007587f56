/// One attachment of a feature, as `…/<layer>/<oid>/attachments` and `queryAttachments` list it.
///
/// ```json
/// {"id":1,"globalId":"{…}","parentGlobalId":"{…}","name":"a.jpg","contentType":"image/jpeg","size":45325,"keywords":""}
/// ```
/// `id` is the attachment id, unique within its layer; `size` is in bytes.
public struct AttachmentInfo: Sendable, Hashable, Codable {
    /// The attachment id, unique within its layer.
    public var id: Int64
    /// The attachment's own GlobalID, when the layer has GlobalIDs.
    public var globalId: String?
    /// The GlobalID of the feature the attachment belongs to (listed by `queryAttachments`).
    public var parentGlobalId: String?
    /// The file name.
    public var name: String
    /// The MIME type, such as `image/jpeg`.
    public var contentType: String
    /// The size in bytes.
    public var size: Int64
    /// Keywords stored with the attachment, when the layer keeps them.
    public var keywords: String?

    package init(
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
package struct AttachmentInfosResponse: Sendable, Hashable, Codable {
    package var attachmentInfos: [AttachmentInfo]

    package init(attachmentInfos: [AttachmentInfo]) { self.attachmentInfos = attachmentInfos }
}

/// The attachments of one feature in a `queryAttachments` answer.
///
/// With `returnCountOnly=true` the group carries `count` instead of `attachmentInfos` (the arcgis Python client reads
/// `attachmentGroups[].count`).
public struct AttachmentGroup: Sendable, Hashable, Codable {
    /// The object ID of the feature the attachments belong to.
    public var parentObjectId: Int64
    /// The GlobalID of that feature, when the layer has GlobalIDs.
    public var parentGlobalId: String?
    /// The feature's matching attachments; nil when the query asked for counts only.
    public var attachmentInfos: [AttachmentInfo]?
    /// How many attachments match; set when the query asked for counts only.
    public var count: Int?

    package init(parentObjectId: Int64, parentGlobalId: String? = nil, attachmentInfos: [AttachmentInfo]? = nil, count: Int? = nil) {
        self.parentObjectId = parentObjectId
        self.parentGlobalId = parentGlobalId
        self.attachmentInfos = attachmentInfos
        self.count = count
    }
}

/// The answer to `…/<layer>/queryAttachments`: `{"attachmentGroups":[…]}` (features without matching attachments are
/// left out).
public struct AttachmentGroupsResponse: Sendable, Hashable, Codable {
    /// One group per feature that has matching attachments.
    public var attachmentGroups: [AttachmentGroup]
    /// True when paging (`resultRecordCount`) left attachments out.
    public var exceededTransferLimit: Bool?

    package init(attachmentGroups: [AttachmentGroup], exceededTransferLimit: Bool? = nil) {
        self.attachmentGroups = attachmentGroups
        self.exceededTransferLimit = exceededTransferLimit
    }
}

/// One entry of a layer's `attachmentProperties`: which attachment property the layer reports (`{name, isEnabled}`).
public struct AttachmentProperty: Sendable, Hashable, Codable {
    /// The property's name, such as `keywords` or `exifInfo`.
    public var name: String
    /// Whether the layer reports the property.
    public var isEnabled: Bool

    package init(name: String, isEnabled: Bool) {
        self.name = name
        self.isEnabled = isEnabled
    }

    /// The properties every attachment of this service carries: `name`, `size`, `contentType`, `keywords`, `globalId`
    /// (`exifInfo` is not kept).
    package static let standard: [AttachmentProperty] = [
        AttachmentProperty(name: "name", isEnabled: true),
        AttachmentProperty(name: "size", isEnabled: true),
        AttachmentProperty(name: "contentType", isEnabled: true),
        AttachmentProperty(name: "keywords", isEnabled: true),
        AttachmentProperty(name: "exifInfo", isEnabled: false),
    ]
}
