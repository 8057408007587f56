import BatchApply
import Testing

@Suite struct DerivedGlobalIDTests {
    /// The derived IDs must never change: applying a file again, with a later release and without the first run's
    /// journal, finds its adds by these IDs instead of adding them twice.
    @Test(
        "A record's derived GlobalID is the same in every release",
        arguments: [
            (0, 0, "", "{5873C275-A4E4-83BD-A9CC-0950C63BB2CE}"),
            (0, 41, "{\"type\": \"Feature\", \"properties\": {\"name\": \"Bench 41\"}}", "{FEB1A0A5-06FC-8A45-81AF-05DBF61469BA}"),
            (3, 123_456, "Zürich,8.54,47.37,\"Parc de l'Île\"", "{A8B82E7A-B0B7-8B72-93B9-5C2ABC022194}"),
        ])
    func stable(layer: Int, position: Int, source: String, expected: String) {
        #expect(DerivedGlobalID.make(layer: layer, position: position, source: source) == expected)
    }
}
