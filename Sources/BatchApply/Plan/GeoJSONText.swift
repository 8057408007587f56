/// The text of a GeoJSON Feature record and the coordinate system its coordinates are in, kept beside its deferred
/// decoding so the planner can take its fast path (``PointAdds``).
package struct GeoJSONText: Sendable {
    package var bytes: [UInt8]
    package var position: InputPosition
    package var wkid: Int

    package init(bytes: [UInt8], position: InputPosition, wkid: Int) {
        self.bytes = bytes
        self.position = position
        self.wkid = wkid
    }
}
