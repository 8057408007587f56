/// The one rule for a live target's URL, shared by scenario files (`target:`), `run --target`, `validate --target` and
/// `apply --to`: an `http://` or `https://` URL with a host, whose path ends in `/FeatureServer` (any case), with no
/// token in it. A query or fragment (as a browser's address bar shows, `…/FeatureServer?f=pjson`) and trailing
/// slashes are dropped. Pure.
package enum FeatureServerURL {
    /// Why a text is not a feature service URL, and what to write instead.
    package struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, e.g. "'https://host/MapServer' is not a feature service URL".
        package var problem: String
        /// What to write instead.
        package var fix: String
        package var description: String { "\(problem). Fix: \(fix)" }
    }

    /// The example every fix shows.
    package static let example = "https://host/arcgis/rest/services/Parks/FeatureServer"

    /// `text` as a service URL without its query, fragment and trailing slashes, or why it is not one.
    package static func normalized(_ text: String) -> Result<String, Problem> {
        // Checked before the query is dropped: a token in a URL ends up in logs, reports and journals.
        if text.lowercased().contains("token=") {
            return .failure(
                Problem(
                    problem: "the URL carries a token",
                    fix: "leave it out of the URL and give it through the environment (--token-env NAME, or `auth: { token: \"${NAME}\" }` "
                        + "in a scenario file); a token in a URL ends up in logs and reports"))
        }
        var url = String(text.prefix { $0 != "?" && $0 != "#" })
        while url.hasSuffix("/") { url.removeLast() }
        let lowered = url.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lowered.hasPrefix($0) }) else {
            return .failure(
                Problem(
                    problem: "'\(text)' is neither `local` nor an http(s) URL",
                    fix: "write `local` for the embedded service, or a URL like \(example)"))
        }
        let host = lowered.dropFirst(scheme.count).prefix { $0 != "/" }
        guard !host.isEmpty, lowered.hasSuffix("/featureserver"), lowered.count > scheme.count + host.count + 1 else {
            return .failure(
                Problem(problem: "'\(text)' is not a feature service URL", fix: "give the service URL ending in /FeatureServer, e.g. \(example)"))
        }
        return .success(url)
    }
}
