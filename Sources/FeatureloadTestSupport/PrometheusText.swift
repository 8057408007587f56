/// Samples read back from the Prometheus text exposition format, for tests that check what `/metrics` says.
package struct PrometheusText: Sendable {
    /// One sample line: `name{label="value",…} value`.
    package struct Sample: Sendable, Hashable {
        package var name: String
        package var labels: [String: String]
        package var value: Double
    }

    package let samples: [Sample]
    /// The `# TYPE name kind` lines, by name.
    package let types: [String: String]

    /// Parses `text`; comment lines other than `# TYPE` are skipped, and so are lines that do not parse.
    package init(_ text: String) {
        var samples: [Sample] = []
        var types: [String: String] = [:]
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                if parts.count == 4 { types[String(parts[2])] = String(parts[3]) }
                continue
            }
            if line.hasPrefix("#") { continue }
            if let sample = Self.sample(Substring(line)) { samples.append(sample) }
        }
        self.samples = samples
        self.types = types
    }

    /// The sum of the samples named `name` whose labels include every pair of `matching`.
    package func sum(_ name: String, matching: [String: String] = [:]) -> Double {
        series(name, matching: matching).reduce(0) { $0 + $1.value }
    }

    /// The samples named `name` whose labels include every pair of `matching`.
    package func series(_ name: String, matching: [String: String] = [:]) -> [Sample] {
        samples.filter { sample in sample.name == name && matching.allSatisfy { sample.labels[$0.key] == $0.value } }
    }

    private static func sample(_ line: Substring) -> Sample? {
        guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { return nil }
        let head = line[..<space]
        guard let brace = head.firstIndex(of: "{") else { return Sample(name: String(head), labels: [:], value: value) }
        guard head.hasSuffix("}") else { return nil }
        var labels: [String: String] = [:]
        var rest = head[head.index(after: brace)..<head.index(before: head.endIndex)]
        while let equals = rest.firstIndex(of: "=") {
            let key = rest[..<equals].trimmingPrefix(",")
            var index = rest.index(equals, offsetBy: 2)  // past ="
            var value = ""
            while index < rest.endIndex, rest[index] != "\"" {
                if rest[index] == "\\", rest.index(after: index) < rest.endIndex {
                    index = rest.index(after: index)
                    value.append(rest[index] == "n" ? "\n" : rest[index])
                } else {
                    value.append(rest[index])
                }
                index = rest.index(after: index)
            }
            labels[String(key)] = value
            rest = index < rest.endIndex ? rest[rest.index(after: index)...] : rest[rest.endIndex...]
        }
        return Sample(name: String(head[..<brace]), labels: labels, value: value)
    }
}
