/// Why the local feature service could not start.
///
/// `description` says what to change: the known dataset names, the database path and SQLite's reason, or the
/// address that could not be bound.
public struct LocalFeatureServerError: Error, Sendable, CustomStringConvertible {
    private enum Kind: Sendable, Hashable {
        case unknownDataset(name: String, known: [String])
        case databaseOpen(path: String, reason: String)
        case bind(host: String, port: Int, reason: String)
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

    public var description: String {
        switch kind {
        case .unknownDataset(let name, let known):
            return "unknown dataset '\(name)'; known datasets: \(known.joined(separator: ", "))"
        case .databaseOpen(let path, let reason):
            return "cannot open database \(path): \(reason)"
        case .bind(let host, let port, let reason):
            return "cannot listen on \(host):\(port): \(reason)"
        }
    }
}
