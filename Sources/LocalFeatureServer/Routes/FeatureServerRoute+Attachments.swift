extension FeatureServerRoute {
    /// The attachment edit endpoints of a feature.
    enum AttachmentOperation: String, Sendable, Hashable {
        case addAttachment
        case updateAttachment
        case deleteAttachments
    }

    /// The route for the segments after `…/FeatureServer/<layer>/` when there are two or three of them:
    /// `<oid>/attachments`, `<oid>/attachments/<id>`, `<oid>/addAttachment|updateAttachment|deleteAttachments`.
    /// Nil for anything else (object and attachment ids must be non-negative integers).
    static func attachmentRoute(service: String, layer: Int, lowered: [String]) -> FeatureServerRoute? {
        guard lowered.count == 2 || lowered.count == 3, let objectId = Int64(lowered[0]), objectId >= 0 else { return nil }
        if lowered.count == 3 {
            guard lowered[1] == "attachments", let attachmentId = Int64(lowered[2]), attachmentId >= 0 else { return nil }
            return .attachment(service: service, layer: layer, objectId: objectId, attachmentId: attachmentId)
        }
        switch lowered[1] {
        case "attachments": return .attachments(service: service, layer: layer, objectId: objectId)
        case "addattachment": return .attachmentEdit(service: service, layer: layer, objectId: objectId, operation: .addAttachment)
        case "updateattachment": return .attachmentEdit(service: service, layer: layer, objectId: objectId, operation: .updateAttachment)
        case "deleteattachments": return .attachmentEdit(service: service, layer: layer, objectId: objectId, operation: .deleteAttachments)
        default: return nil
        }
    }
}

/// The resources of a service's `uploads` (arcgis-rest.md §3), from the path segments after `…/FeatureServer/uploads/`.
///
/// Item IDs keep their case; their characters are checked by the store (``UploadItemID/isValid(_:)``), so a
/// percent-encoded `../` is answered like any unknown item.
enum UploadsRoute: Sendable, Hashable {
    /// `uploads/upload` (POST, multipart `file`).
    case upload
    /// `uploads/register` (POST `itemName`, `description`).
    case register
    /// `uploads/<itemID>` (the item).
    case item(String)
    /// `uploads/<itemID>/parts`.
    case parts(String)
    /// `uploads/<itemID>/uploadPart` (POST, multipart `file` + `partId`).
    case uploadPart(String)
    /// `uploads/<itemID>/commit` (POST `parts`).
    case commit(String)
    /// `uploads/<itemID>/delete` (POST).
    case delete(String)

    /// The route for `segments` (unescaped), or nil.
    init?(segments: [String]) {
        switch segments.count {
        case 1:
            switch segments[0].lowercased() {
            case "upload": self = .upload
            case "register": self = .register
            default: self = .item(segments[0])
            }
        case 2:
            let itemId = segments[0]
            switch segments[1].lowercased() {
            case "parts": self = .parts(itemId)
            case "uploadpart": self = .uploadPart(itemId)
            case "commit": self = .commit(itemId)
            case "delete": self = .delete(itemId)
            default: return nil
            }
        default:
            return nil
        }
    }
}
