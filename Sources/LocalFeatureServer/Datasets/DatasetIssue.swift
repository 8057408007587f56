import FeatureModel

/// One problem in a dataset file: where (a JSON path such as `layers[1].fields[3].type`), what is wrong, and
/// how to fix it.
package struct DatasetIssue: Sendable, Hashable, CustomStringConvertible {
    /// The JSON path of the offending value (`$` for the whole document).
    package var path: String
    /// What is wrong, e.g. `unknown field type 'esriFieldTypeStrng'`.
    package var problem: String
    /// What to do about it, e.g. `use one of esriFieldTypeString, …`.
    package var fix: String

    /// An issue at `path`.
    package init(path: String, problem: String, fix: String) {
        self.path = path
        self.problem = problem
        self.fix = fix
    }

    /// `layers[1].fields[3].type: unknown field type 'x'; use one of …`.
    package var description: String { "\(path): \(problem); \(fix)" }
}

/// Collects ``DatasetIssue``s while a dataset file is read, and reads typed values from its JSON.
struct DatasetIssues {
    private(set) var all: [DatasetIssue] = []

    mutating func add(_ path: String, _ problem: String, fix: String) {
        all.append(DatasetIssue(path: path, problem: problem, fix: fix))
    }

    /// `members`, after reporting keys outside `known` (typos would otherwise be silently ignored).
    mutating func checkKeys(_ members: [String: JSONValue], known: [String], path: String) {
        for key in members.keys.sorted() where !known.contains(key) {
            add(join(path, key), "unknown key '\(key)'", fix: "remove it or use one of \(known.joined(separator: ", "))")
        }
    }

    mutating func object(_ value: JSONValue?, _ path: String) -> [String: JSONValue]? {
        guard case .object(let members)? = value else {
            add(path, value == nil ? "missing" : "expected an object, got \(Self.kind(value))", fix: "write a JSON object { … }")
            return nil
        }
        return members
    }

    mutating func array(_ value: JSONValue?, _ path: String) -> [JSONValue]? {
        guard case .array(let items)? = value else {
            add(path, value == nil ? "missing" : "expected an array, got \(Self.kind(value))", fix: "write a JSON array [ … ]")
            return nil
        }
        return items
    }

    mutating func string(_ members: [String: JSONValue], _ key: String, _ path: String, required: Bool = false) -> String? {
        switch members[key] {
        case nil, .null?:
            if required { add(join(path, key), "missing", fix: "add \"\(key)\": \"…\"") }
            return nil
        case .string(let text)?:
            if required && text.isEmpty { add(join(path, key), "empty", fix: "give it a value") }
            return text
        case let other?:
            add(join(path, key), "expected a string, got \(Self.kind(other))", fix: "write it in double quotes")
            return nil
        }
    }

    mutating func int(_ members: [String: JSONValue], _ key: String, _ path: String, required: Bool = false, minimum: Int? = nil) -> Int? {
        switch members[key] {
        case nil, .null?:
            if required { add(join(path, key), "missing", fix: "add \"\(key)\": <integer>") }
            return nil
        case let value?:
            guard let integer = value.intValue, let result = Int(exactly: integer) else {
                add(join(path, key), "expected an integer, got \(value)", fix: "write a whole number")
                return nil
            }
            if let minimum, result < minimum {
                add(join(path, key), "\(result) is below \(minimum)", fix: "use a value of at least \(minimum)")
                return nil
            }
            return result
        }
    }

    mutating func bool(_ members: [String: JSONValue], _ key: String, _ path: String) -> Bool? {
        switch members[key] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case let other?:
            add(join(path, key), "expected true or false, got \(other)", fix: "write true or false (no quotes)")
            return nil
        }
    }

    /// `path.key`, or `key` at the top level.
    func join(_ path: String, _ key: String) -> String { path == "$" ? key : "\(path).\(key)" }

    static func kind(_ value: JSONValue?) -> String {
        switch value {
        case nil: return "nothing"
        case .null?: return "null"
        case .bool?: return "a boolean"
        case .int?, .double?: return "a number"
        case .string?: return "a string"
        case .array?: return "an array"
        case .object?: return "an object"
        }
    }
}
