/// An item of a feature service's `uploads` resource: a file uploaded whole (`uploads/upload`) or in parts
/// (`uploads/register`, `uploadPart`, `commit`), then used as `uploadId` by addAttachment, updateAttachment and
/// applyEdits attachments.
///
/// ```json
/// {"itemID":"i4b0c…","itemName":"photo.jpg","description":"","date":1690000000000,"committed":true}
/// ```
public struct UploadItem: Sendable, Hashable, Codable {
    public var itemID: String
    public var itemName: String
    public var description: String
    /// When the item was created, in epoch milliseconds.
    public var date: Int64
    /// Whether the item's bytes are complete (always true after `upload`; true after `commit` for a registered item).
    public var committed: Bool
    /// Bytes in the committed item (nil before the commit).
    public var size: Int64?

    public init(itemID: String, itemName: String, description: String = "", date: Int64, committed: Bool, size: Int64? = nil) {
        self.itemID = itemID
        self.itemName = itemName
        self.description = description
        self.date = date
        self.committed = committed
        self.size = size
    }
}

/// The answer to `uploads/upload`, `uploads/register`, `uploads/<itemID>/commit` and `GET uploads/<itemID>`:
/// `{"success":true,"item":{…}}`.
public struct UploadItemResponse: Sendable, Hashable, Codable {
    public var success: Bool
    public var item: UploadItem

    public init(success: Bool = true, item: UploadItem) {
        self.success = success
        self.item = item
    }
}

/// The answer to `GET uploads/<itemID>/parts`: `{"parts":["1","2"]}` (part ids as strings, in order).
public struct UploadPartsResponse: Sendable, Hashable, Codable {
    public var parts: [String]

    public init(parts: [String]) { self.parts = parts }
}
