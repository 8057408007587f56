import BatchApply
import FeatureModel
import Testing

@Suite struct DerivedGlobalIDTests {
    /// The derived IDs must never change: applying a file again, with a later release and without the first run's
    /// journal, finds its adds by these IDs instead of adding them twice. The hashed ones are those of the releases
    /// before ordered IDs, which a run still derives when it finds an input applied by one of them.
    @Test(
        "A record's derived GlobalID is the same in every release, in each scheme",
        arguments: [
            (0, 0, "", DerivedGlobalID.Scheme.hashed, "{5873C275-A4E4-83BD-A9CC-0950C63BB2CE}"),
            (0, 41, "{\"type\": \"Feature\", \"properties\": {\"name\": \"Bench 41\"}}", .hashed, "{FEB1A0A5-06FC-8A45-81AF-05DBF61469BA}"),
            (3, 123_456, "Zürich,8.54,47.37,\"Parc de l'Île\"", .hashed, "{A8B82E7A-B0B7-8B72-93B9-5C2ABC022194}"),
            (0, 0, "", .ordered, "{00000000-0000-83BD-A9CC-0950C63BB2CE}"),
            (0, 41, "{\"type\": \"Feature\", \"properties\": {\"name\": \"Bench 41\"}}", .ordered, "{00000000-0029-8A45-81AF-05DBF61469BA}"),
            (3, 123_456, "Zürich,8.54,47.37,\"Parc de l'Île\"", .ordered, "{00000001-E240-8B72-93B9-5C2ABC022194}"),
        ])
    func stable(layer: Int, position: Int, source: String, scheme: DerivedGlobalID.Scheme, expected: String) {
        #expect(DerivedGlobalID.make(layer: layer, position: position, source: source, scheme: scheme) == expected)
    }

    @Test("ordered IDs sort as their positions do, keep the hash's bits, and are version 8 GUIDs of the RFC 9562 variant")
    func ordered() {
        let text = #"{"type": "Feature", "properties": {"name": "Bench"}}"#
        let positions = [0, 1, 2, 255, 256, 65_535, 65_536, 1_000_000, 1 << 40]
        let ids = positions.map { DerivedGlobalID.make(layer: 0, position: $0, source: text, scheme: .ordered) }
        // The service's GlobalID index holds them as text: the order of the text is the order of the input.
        #expect(ids == ids.sorted(), "\(ids)")
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(GlobalID.normalized(id) == id, "canonical form: \(id)")
            let hex = Array(id.utf8)
            #expect(hex[15] == UInt8(ascii: "8"), "version 8: \(id)")
            #expect([UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "A"), UInt8(ascii: "B")].contains(hex[20]), "variant: \(id)")
        }
        // Same position: the layer and the text still tell adds apart, in the bits after the position.
        let here = DerivedGlobalID.make(layer: 0, position: 7, source: text, scheme: .ordered)
        #expect(here != DerivedGlobalID.make(layer: 1, position: 7, source: text, scheme: .ordered))
        #expect(here != DerivedGlobalID.make(layer: 0, position: 7, source: text + " ", scheme: .ordered))
        #expect(here.hasPrefix("{00000000-0007-8"))
        // The low half is the hashed ID's: only the first 64 bits are laid out differently.
        let hashed = DerivedGlobalID.make(layer: 0, position: 7, source: text, scheme: .hashed)
        #expect(here.suffix(18) == hashed.suffix(18))
    }
}
