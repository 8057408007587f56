import FeatureModel

/// Spatial references between ``SpatialReference`` and the wire's message (whose `lastestWkid` is spelled as Esri's
/// specification spells it).
enum PBFSpatialReference {
    static func message(_ reference: SpatialReference) -> FeatureCollectionMessage.SpatialReference {
        var message = FeatureCollectionMessage.SpatialReference()
        message.wkid = UInt32(clamping: reference.wkid ?? 0)
        message.lastestWkid = UInt32(clamping: reference.latestWkid ?? 0)
        return message
    }

    static func value(_ message: FeatureCollectionMessage.SpatialReference) -> SpatialReference? {
        guard message.wkid != 0 || message.lastestWkid != 0 else { return nil }
        return SpatialReference(
            wkid: message.wkid == 0 ? nil : Int(message.wkid), latestWkid: message.lastestWkid == 0 ? nil : Int(message.lastestWkid))
    }
}
