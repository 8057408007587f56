/// `${NAME}` interpolation in scenario values, as in docker-compose: `${NAME}`, `${NAME:-default}`, and `$$` for a
/// literal `$`. Pure: the environment is passed in.
enum Interpolation {
    struct Missing: Error, Hashable {
        var name: String
    }

    static func expand(_ text: String, environment: [String: String]) -> Result<String, Missing> {
        var out = ""
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
                if let value = environment[name], !(parts.count == 2 && value.isEmpty) {
                    out += value
                } else if parts.count == 2 {
                    out += parts[1]
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
        return .success(out)
    }
}
