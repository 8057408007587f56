/// The text of a GeoJSON Feature record and the coordinate system its coordinates are in, kept beside its deferred
/// decoding so the planner can take its fast path (``PointAdds``).
public struct GeoJSONText: Sendable {
    public var bytes: [UInt8]
    public var position: InputPosition
    public var wkid: Int

    public init(bytes: [UInt8], position: InputPosition, wkid: Int) {
        self.bytes = bytes
        self.position = position
        self.wkid = wkid
    }
}
