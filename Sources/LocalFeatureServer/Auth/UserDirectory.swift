import FeatureModel
import Foundation

/// The users who may request tokens (`featureload serve --users FILE`): usernames and their passwords.
///
/// Passwords stay in memory only; ``description`` shows the number of users, never a password, so the value can
/// be logged or printed safely.
///
/// The file is JSON or a small YAML subset, in one of these shapes:
/// ```yaml
/// users:
///   - username: qa
///     password: "s3cret"
///   - username: editor
///     password: other
/// ```
/// ```yaml
/// qa: s3cret        # a flat mapping of username to password
/// ```
/// ```json
/// {"users": [{"username": "qa", "password": "s3cret"}]}
/// ```
/// In YAML, values may be quoted with `'` or `"`; only whole-line `#` comments are recognised (a password may
/// contain `#`). A blank password is refused with its line or entry: `generateToken` requires a password, so that
/// user could never sign in.
public struct UserDirectory: Sendable, CustomStringConvertible {
    private let passwords: [String: [UInt8]]

    /// A directory of `users` (username → password). A user with a blank name or password cannot sign in; a server
    /// whose directory has no other user refuses to start (``LocalFeatureServerError/isInvalidUsers``).
    public init(_ users: [String: String]) {
        passwords = users.mapValues { Array($0.utf8) }
    }

    /// The usernames, sorted.
    public var usernames: [String] { passwords.keys.sorted() }

    /// The usernames that can sign in (non-blank name and password), sorted.
    var usableUsernames: [String] {
        passwords.filter { !Self.isBlank($0.key.utf8) && !Self.isBlank($0.value) }.keys.sorted()
    }

    /// Whether `text` is empty or white space only: `generateToken` treats such a parameter as missing. Pure.
    private static func isBlank(_ bytes: some Collection<UInt8>) -> Bool {
        String(decoding: bytes, as: UTF8.self).allSatisfy(\.isWhitespace)
    }

    /// `"<n> users"`: never a password.
    public var description: String { "\(passwords.count) user\(passwords.count == 1 ? "" : "s")" }

    /// Whether `password` is `username`'s; compares in time independent of where the passwords differ.
    func verify(username: String, password: String) -> Bool {
        guard let expected = passwords[username] else { return false }
        let given = Array(password.utf8)
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for index in 0..<expected.count { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }

    /// Reads a users file (JSON or the YAML subset above).
    /// - Throws: ``LocalFeatureServerError`` (``LocalFeatureServerError/isInvalidUsers``) naming the file and the
    ///   line or entry at fault; never a password.
    public init(contentsOfFile path: String) throws(LocalFeatureServerError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .invalidUsers(path: path, reason: "cannot read the file: \(error.localizedDescription)")
        }
        let users: [String: String]
        do throws(UsersFileProblem) {
            users = try Self.parse(text)
        } catch {
            throw .invalidUsers(path: path, reason: error.reason)
        }
        guard !users.isEmpty else {
            throw .invalidUsers(path: path, reason: "no users; write e.g. 'users:' then '  - username: qa' and '    password: secret'")
        }
        self.init(users)
    }

    /// Username → password from the text of a users file.
    static func parse(_ text: String) throws(UsersFileProblem) -> [String: String] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") { return try parseJSON(trimmed) }
        return try parseYAML(text)
    }

    private static func parseJSON(_ text: String) throws(UsersFileProblem) -> [String: String] {
        let root: JSONValue
        do {
            root = try JSONReader.parse(text)
        } catch {
            throw UsersFileProblem(reason: "not valid JSON: \(error)")
        }
        var entries: [JSONValue]
        switch root {
        case .object(let object) where object["users"] != nil:
            guard case .array(let list)? = object["users"] else { throw UsersFileProblem(reason: "'users' must be an array") }
            entries = list
        case .object(let object):
            var users: [String: String] = [:]
            for (name, value) in object {
                guard let password = value.stringValue else { throw UsersFileProblem(reason: "the password of '\(name)' must be a string") }
                try checkUsable(name, password, at: "'\(name)'")
                users[name] = password
            }
            return users
        case .array(let list):
            entries = list
        default:
            throw UsersFileProblem(reason: "expected an object or an array of {username, password}")
        }
        var users: [String: String] = [:]
        for (index, entry) in entries.enumerated() {
            guard case .object(let object) = entry, let name = object["username"]?.stringValue, !name.isEmpty,
                let password = object["password"]?.stringValue
            else { throw UsersFileProblem(reason: "users[\(index)] needs a non-empty 'username' and a string 'password'") }
            guard users[name] == nil else { throw UsersFileProblem(reason: "users[\(index)]: username '\(name)' appears twice") }
            try checkUsable(name, password, at: "users[\(index)]")
            users[name] = password
        }
        return users
    }

    private static func parseYAML(_ text: String) throws(UsersFileProblem) -> [String: String] {
        var users: [String: String] = [:]
        var inList = false
        var pending: (name: String?, password: String?, line: Int)?
        func flush() throws(UsersFileProblem) {
            guard let entry = pending else { return }
            guard let name = entry.name, !name.isEmpty, let password = entry.password else {
                throw UsersFileProblem(reason: "line \(entry.line): each list entry needs 'username' and 'password'")
            }
            guard users[name] == nil else { throw UsersFileProblem(reason: "line \(entry.line): username '\(name)' appears twice") }
            try checkUsable(name, password, at: "line \(entry.line)")
            users[name] = password
            pending = nil
        }
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let content = line.trimmingCharacters(in: .whitespaces)
            if content.isEmpty || content.hasPrefix("#") || content == "---" { continue }
            if content == "users:" {
                inList = true
                continue
            }
            var item = content
            if inList && item.hasPrefix("- ") {
                try flush()
                pending = (nil, nil, number)
                item = String(item.dropFirst(2)).trimmingCharacters(in: .whitespaces)
            }
            guard let colon = item.firstIndex(of: ":") else {
                throw UsersFileProblem(reason: "line \(number): expected 'key: value'")
            }
            let key = unquote(String(item[..<colon]).trimmingCharacters(in: .whitespaces))
            let value = unquote(String(item[item.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
            if inList {
                guard pending != nil else { throw UsersFileProblem(reason: "line \(number): expected '- username: NAME' to start an entry") }
                switch key {
                case "username": pending?.name = value
                case "password": pending?.password = value
                default: throw UsersFileProblem(reason: "line \(number): unknown key '\(key)' (username, password)")
                }
            } else {
                guard !key.isEmpty else { throw UsersFileProblem(reason: "line \(number): empty username") }
                guard key != "users" else {
                    throw UsersFileProblem(
                        reason:
                            "line \(number): 'users:' takes no value; list the users on the lines below it ('  - username: qa', '    password: secret')"
                    )
                }
                guard users[key] == nil else { throw UsersFileProblem(reason: "line \(number): username '\(key)' appears twice") }
                try checkUsable(key, value, at: "line \(number)")
                users[key] = value
            }
        }
        try flush()
        return users
    }

    /// Refuses an entry nobody could sign in as (`generateToken` treats a blank username or password as missing).
    private static func checkUsable(_ name: String, _ password: String, at position: String) throws(UsersFileProblem) {
        guard isBlank(name.utf8) else {
            guard isBlank(password.utf8) else { return }
            throw UsersFileProblem(reason: "\(position): the password of '\(name)' is blank, so '\(name)' could never sign in; give it a password")
        }
        throw UsersFileProblem(reason: "\(position): the username is blank; give the user a name")
    }

    private static func unquote(_ text: String) -> String {
        guard text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first else { return text }
        return String(text.dropFirst().dropLast())
    }
}

/// Why a users file could not be read (without the password).
struct UsersFileProblem: Error, Sendable {
    var reason: String
}
