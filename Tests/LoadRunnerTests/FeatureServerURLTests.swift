import LoadRunner
import Testing

/// One rule for a live target's URL: a scenario file's `target:`, `run --target`, `validate --target` and `apply --to`
/// all use ``FeatureServerURL``. The cases are those on which the three checks it replaced disagreed.
@Suite struct FeatureServerURLTests {
    @Test(
        "a FeatureServer URL is taken without its query, fragment or trailing slashes, in any case",
        arguments: [
            ("https://host/arcgis/rest/services/Parks/FeatureServer", "https://host/arcgis/rest/services/Parks/FeatureServer"),
            ("https://host/arcgis/rest/services/Parks/FeatureServer//", "https://host/arcgis/rest/services/Parks/FeatureServer"),
            ("HTTP://Host:8080/arcgis/rest/services/Parks/FEATURESERVER/", "HTTP://Host:8080/arcgis/rest/services/Parks/FEATURESERVER"),
            // A browser's address bar: the file's check refused it, `--target` took it.
            ("https://host/arcgis/rest/services/Parks/FeatureServer?f=pjson", "https://host/arcgis/rest/services/Parks/FeatureServer"),
            ("https://host/arcgis/rest/services/Parks/FeatureServer/#layers", "https://host/arcgis/rest/services/Parks/FeatureServer"),
        ])
    func accepted(text: String, expected: String) {
        #expect(FeatureServerURL.normalized(text) == .success(expected))
    }

    @Test(
        "anything else is refused with the problem and the fix",
        arguments: [
            // `--target` and `validate` took any scheme starting with "http"; the file's check did not.
            ("httpx://host/arcgis/rest/services/Parks/FeatureServer", "neither `local` nor an http(s) URL"),
            ("/https://host/arcgis/rest/services/Parks/FeatureServer", "neither `local` nor an http(s) URL"),
            ("ftp://host/arcgis/rest/services/Parks/FeatureServer", "neither `local` nor an http(s) URL"),
            // No host, or no path: every check took the first.
            ("https:///FeatureServer", "is not a feature service URL"),
            ("https://featureserver", "is not a feature service URL"),
            ("https://host/arcgis/rest/services/Parks/MapServer", "is not a feature service URL"),
            ("https://host/arcgis/rest/services/Parks/FeatureServer/0", "is not a feature service URL"),
            // Only `--target` refused a token in the URL; the others refused it for its query, or took it.
            ("https://host/arcgis/rest/services/Parks/FeatureServer?token=secret", "the URL carries a token"),
            ("https://host/arcgis/rest/services/Parks/FeatureServer?f=json&TOKEN=secret", "the URL carries a token"),
        ])
    func refused(text: String, problem: String) throws {
        guard case .failure(let invalid) = FeatureServerURL.normalized(text) else {
            let message = "took \(text)"
            Issue.record(Comment(rawValue: message))
            return
        }
        #expect(invalid.problem.contains(problem), "\(invalid)")
        #expect(!invalid.fix.isEmpty && !invalid.description.contains("secret"), "\(invalid)")
        if problem != "the URL carries a token" { #expect(invalid.fix.contains(FeatureServerURL.example)) }
    }
}
