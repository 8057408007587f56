/// Which names a tag (`run --tag`, a scenario's `tags:`) may have: one rule for the command line, the scenario file
/// and the live metrics, since every tag becomes a label of every series `/metrics` serves.
package enum TagName {
    /// The labels featureload's own series carry, and those Prometheus gives a meaning (`le` a histogram bucket's
    /// bound, `quantile` a summary's): a tag of one of these names would be dropped or break every scrape.
    package static let reserved = ["scenario", "operation", "status", "generator", "run_id", "le", "quantile"]

    /// `name` as a Prometheus label name: other characters become `_`, and a leading digit gets a `_` before it.
    static func label(_ name: String) -> String {
        var label = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") ? $0 : "_" })
        if label.first.map({ $0.isNumber }) ?? true { label = "_" + label }
        return label
    }

    /// Why `name` cannot be a tag's, or nil when it can (as its label name, too: `run-id` would be `run_id`).
    package static func problem(_ name: String) -> String? {
        let label = label(name)
        if reserved.contains(label) {
            let shown = label == name ? name : "\(name) (the label \(label))"
            return "\(shown) is a label featureload or Prometheus sets (\(reserved.joined(separator: ", "))); choose another name"
        }
        if label.hasPrefix("__") { return "\(name) begins with __, which Prometheus keeps for its own labels; choose another name" }
        return nil
    }
}
