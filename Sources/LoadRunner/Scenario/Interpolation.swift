/// `${NAME}` interpolation in scenario values, as in docker-compose: `${NAME}`, `${NAME:-default}`, and `$$` for a
/// literal `$`. Pure: the values are looked up through the closure passed in.
enum Interpolation {
    struct Missing: Error, Hashable {
        var name: String
    }

    /// A variable a text named, and whether its default stood in for it (unset or empty).
    struct Use: Hashable {
        var name: String
        /// The text put in its place.
        var value: String
        /// Whether `value` is the default because the variable was unset or empty.
        var defaulted: Bool
        /// Whether the text wrote a default (`${NAME:-default}`), used or not.
        var writesDefault = false
    }

    /// A text with its variables replaced, and the variables it named, in order.
    struct Expansion: Hashable {
        var text: String
        var uses: [Use]
    }

    static func expand(_ text: String, environment: [String: String]) -> Result<String, Missing> {
        expand(text) { environment[$0] }.map(\.text)
    }

    /// `text` with every `${NAME}` replaced by `lookup(NAME)` (or its default), and `$$` by `$`.
    /// - Returns: The expansion, or the first variable that is unset and has no default.
    static func expand(_ text: String, lookup: (String) -> String?) -> Result<Expansion, Missing> {
        var out = ""
        var uses: [Use] = []
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            out += rest[..<dollar]
            let after = rest[rest.index(after: dollar)...]
            if after.hasPrefix("$") {
                out += "$"
                rest = after.dropFirst()
            } else if after.hasPrefix("{"), let close = after.firstIndex(of: "}") {
                let inner = after[after.index(after: after.startIndex)..<close]
                let parts = inner.split(separator: ":-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let name = parts[0]
                if let value = lookup(name), !(parts.count == 2 && value.isEmpty) {
                    out += value
                    uses.append(Use(name: name, value: value, defaulted: false, writesDefault: parts.count == 2))
                } else if parts.count == 2 {
                    out += parts[1]
                    uses.append(Use(name: name, value: parts[1], defaulted: true, writesDefault: true))
                } else {
                    return .failure(Missing(name: name))
                }
                rest = after[after.index(after: close)...]
            } else {
                out += "$"
                rest = after
            }
        }
        out += rest
        return .success(Expansion(text: out, uses: uses))
    }
}
