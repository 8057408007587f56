import Testing

@testable import LocalFeatureServer

/// The per-request shortcuts (ASCII media types, paths that cannot be admin or token paths, segments without escapes)
/// answer exactly what the general code does.
struct RequestFastPathTests {
    /// The media type as the general path computes it (Unicode trimming and lower-casing).
    static func generalMediaType(_ contentType: String?) -> String {
        contentType.map { String($0.split(separator: ";", maxSplits: 1).first ?? "").trimmed.lowercased() } ?? ""
    }

    @Test(arguments: [
        nil, "", " ", ";", "; charset=utf-8", "  ;x", "application/x-www-form-urlencoded", "Application/X-WWW-Form-URLEncoded; charset=UTF-8",
        " \tmultipart/form-data; boundary=abc", "text/plain\r\n", "application/json ;x", "caf\u{E9}/x", "\u{A0}text/plain\u{A0}",
        "MULTIPART/FORM-DATA", "a;b;c", "\u{0B}text/PLAIN\u{0C}",
    ])
    func mediaTypeMatchesTheGeneralPath(contentType: String?) {
        #expect(FormBody.mediaType(contentType) == Self.generalMediaType(contentType))
    }

    @Test(arguments: [
        ("/arcgis/rest/services/parks/FeatureServer/0/applyEdits", true),
        ("/arcgis/admin/faults", false),
        ("/ARCGIS/Admin/stats", false),
        ("/arcgis/tokens/generateToken", false),
        ("/arcgis/sharing/rest/GENERATETOKEN", false),
        ("/arcgis/rest/services/admin/FeatureServer/0/query", true),
        ("/arcgis/rest/services/p\u{E4}rks/FeatureServer/0/query", true),
        ("/arcgis/rest/services/parks/FeatureServer/0/generateto\u{212A}en", false),
    ])
    func faultSubjectsAreUnchanged(path: String, subject: Bool) {
        let lowered = path.lowercased()
        #expect((!lowered.hasPrefix("/arcgis/admin") && !lowered.contains("generatetoken")) == subject)
        #expect(FaultMiddleware.isSubject(path) == subject)
    }

    @Test func mayContainIsFalseOnlyWhenTheWordCannotBeThere() {
        #expect(FaultMiddleware.mayContain("/arcgis/ADMIN", "admin"))
        #expect(FaultMiddleware.mayContain("/x/adadmin", "admin"))
        #expect(!FaultMiddleware.mayContain("/arcgis/rest/services/parks/FeatureServer/0/applyEdits", "admin"))
        #expect(!FaultMiddleware.mayContain("/adm", "admin"))
        #expect(FaultMiddleware.mayContain("/\u{E9}", "admin"))
    }

    @Test func segmentsWithAndWithoutEscapesRouteAsBefore() {
        let base = "/arcgis/rest/services"
        #expect(FeatureServerRoute(path: base + "/parks/FeatureServer/0/applyEdits") == .applyEdits(service: "parks", layer: 0))
        #expect(FeatureServerRoute(path: base + "/my%20parks/FeatureServer/0/query") == .query(service: "my parks", layer: 0))
        #expect(FeatureServerRoute(path: base + "/my+parks/FeatureServer/0/query") == .query(service: "my parks", layer: 0))
        #expect(FeatureServerRoute(path: base + "/parks/FeatureServer/0/apply%45dits") == .applyEdits(service: "parks", layer: 0))
    }
}
