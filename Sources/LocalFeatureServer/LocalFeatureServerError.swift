/// Why the local feature service could not start.
///
/// `description` says what to change: the known dataset names, the database path and SQLite's reason, or the
/// address that could not be bound.
public struct LocalFeatureServerError: Error, Sendable, CustomStringConvertible {
    private enum Kind: Sendable, Hashable {
        case unknownDataset(name: String, known: [String])
        case databaseOpen(path: String, reason: String)
        case bind(host: String, port: Int, reason: String)
        case invalidDataset(file: String, issues: [DatasetIssue])
        case invalidFaults(source: String, problems: [String])
        case invalidUsers(path: String, reason: String)
        case noUsableUser(users: Int)
        case tls(reason: String)
    }

    private let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    static func unknownDataset(_ name: String, known: [String]) -> LocalFeatureServerError {
        LocalFeatureServerError(.unknownDataset(name: name, known: known))
    }

    static func databaseOpen(path: String, reason: String) -> LocalFeatureServerError {
        LocalFeatureServerError(.databaseOpen(path: path, reason: reason))
    }

    static func bind(host: String, port: Int, reason: String) -> LocalFeatureServerError {
        LocalFeatureServerError(.bind(host: host, port: port, reason: reason))
    }

    static func invalidDataset(file: String, issues: [DatasetIssue]) -> LocalFeatureServerError {
        LocalFeatureServerError(.invalidDataset(file: file, issues: issues))
    }

    /// The problems of a malformed dataset file (empty for other errors).
    package var datasetIssues: [DatasetIssue] {
        if case .invalidDataset(_, let issues) = kind { return issues }
        return []
    }

    static func invalidFaults(_ source: String, problems: [String]) -> LocalFeatureServerError {
        LocalFeatureServerError(.invalidFaults(source: source, problems: problems))
    }

    static func invalidUsers(path: String, reason: String) -> LocalFeatureServerError {
        LocalFeatureServerError(.invalidUsers(path: path, reason: reason))
    }

    /// Token security is on but no user has both a name and a password, so nobody could sign in.
    static func noUsableUser(users: Int) -> LocalFeatureServerError {
        LocalFeatureServerError(.noUsableUser(users: users))
    }

    static func tls(_ reason: String) -> LocalFeatureServerError {
        LocalFeatureServerError(.tls(reason: reason))
    }

    /// Whether the HTTPS listener could not be set up (unreadable certificate or key, no `openssl` for a
    /// self-signed certificate).
    public var isTLSFailure: Bool {
        if case .tls = kind { return true }
        return false
    }

    /// Whether a fault specification (flag, file or admin document) is invalid.
    var isInvalidFaults: Bool {
        if case .invalidFaults = kind { return true }
        return false
    }

    /// Whether the users file (`--users`) cannot be read or is malformed, or token security is on with no user who
    /// could sign in.
    public var isInvalidUsers: Bool {
        switch kind {
        case .invalidUsers, .noUsableUser: return true
        default: return false
        }
    }

    /// Whether this is an unknown-dataset error.
    public var isUnknownDataset: Bool {
        if case .unknownDataset = kind { return true }
        return false
    }

    /// Whether the database file could not be opened.
    public var isDatabaseOpenFailure: Bool {
        if case .databaseOpen = kind { return true }
        return false
    }

    /// Whether the listening address could not be bound.
    public var isBindFailure: Bool {
        if case .bind = kind { return true }
        return false
    }

    /// What failed, with the path, address or dataset involved, for people.
    public var description: String {
        switch kind {
        case .unknownDataset(let name, let known):
            return "unknown dataset '\(name)'; known datasets: \(known.joined(separator: ", "))"
        case .databaseOpen(let path, let reason):
            return "cannot open database \(path): \(reason)"
        case .bind(let host, let port, let reason):
            return "cannot listen on \(host):\(port): \(reason)"
        case .invalidDataset(let file, let issues):
            let count = issues.count == 1 ? "1 problem" : "\(issues.count) problems"
            return "dataset file \(file) has \(count):\n" + issues.map { "  \(file): \($0)" }.joined(separator: "\n")
        case .invalidFaults(let source, let problems):
            return "invalid fault settings in \(source): \(problems.joined(separator: "; "))"
        case .invalidUsers(let path, let reason):
            return "cannot use users file \(path): \(reason)"
        case .noUsableUser(let users):
            let listed = users == 0 ? "no users" : "\(users) user\(users == 1 ? "" : "s"), none with both a name and a password"
            return "token security is on but nobody could sign in (\(listed)); give at least one user a name and a password in the --users file"
        case .tls(let reason):
            return "cannot set up HTTPS: \(reason)"
        }
    }
}
