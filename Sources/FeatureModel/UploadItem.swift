/// An item of a feature service's `uploads` resource: a file uploaded whole (`uploads/upload`) or in parts
/// (`uploads/register`, `uploadPart`, `commit`), then used as `uploadId` by addAttachment, updateAttachment and
/// applyEdits attachments.
///
/// ```json
/// {"itemID":"i4b0c…","itemName":"photo.jpg","description":"","date":1690000000000,"committed":true}
/// ```
package struct UploadItem: Sendable, Hashable, Codable {
    package var itemID: String
    package var itemName: String
    package var description: String
    /// When the item was created, in epoch milliseconds.
    package var date: Int64
    /// Whether the item's bytes are complete (always true after `upload`; true after `commit` for a registered item).
    package var committed: Bool
    /// Bytes in the committed item (nil before the commit).
    package var size: Int64?

    package init(itemID: String, itemName: String, description: String = "", date: Int64, committed: Bool, size: Int64? = nil) {
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
package struct UploadItemResponse: Sendable, Hashable, Codable {
    package var success: Bool
    package var item: UploadItem

    package init(success: Bool = true, item: UploadItem) {
        self.success = success
        self.item = item
    }
}

/// The answer to `GET uploads/<itemID>/parts`: `{"parts":["1","2"]}` (part ids as strings, in order).
package struct UploadPartsResponse: Sendable, Hashable, Codable {
    package var parts: [String]

    package init(parts: [String]) { self.parts = parts }
}
