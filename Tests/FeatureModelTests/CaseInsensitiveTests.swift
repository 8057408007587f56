import FeatureModel
import Testing

@Suite struct CaseInsensitiveTests {
    @Test(
        "Field names compare ignoring case, as lower-cased strings would",
        arguments: [
            ("OBJECTID", "objectid", true), ("GlobalID", "GLOBALID", true), ("name", "name", true), ("", "", true),
            ("name", "names", false), ("names", "name", false), ("name", "nbme", false), ("OBJECTID", "GlobalID", false),
            ("a_b", "A_B", true), ("a_b", "a@b", false), ("[", "{", false), ("", "x", false),
            // Outside ASCII: as lower-cased strings, where case can change the UTF-8 length.
            ("STRAẞE", "straße", true), ("Île", "île", true), ("Île", "ile", false), ("\u{212A}", "k", true), ("K", "\u{212A}", true),
            ("café", "CAFE\u{301}", true), ("cafe", "CAFE\u{301}", false), ("Straße_Nr", "Straße_Nr", true), ("Île", "Île", true),
        ])
    func comparesAsLowercased(_ a: String, _ b: String, _ equal: Bool) {
        #expect(a.caseInsensitiveEquals(b) == equal)
        #expect(b.caseInsensitiveEquals(a) == equal)
        #expect((a.lowercased() == b.lowercased()) == equal)
    }
}
