/// Why `featureload apply` could not do its work, phrased for the person running it.
public enum ApplyError: Error, Sendable, CustomStringConvertible {
    /// The journal cannot be made, opened or read.
    case journal(String)
    /// The input cannot be read or does not fit the layer; every problem, with its position.
    case invalidInput([InputProblem], file: String)
    /// The target's layer cannot take the edits (no such layer, no GlobalID field for adds).
    case target(String)
    /// The command's options cannot be used (an `--attachments` directory that is not there).
    case invalidOptions(String)

    public var description: String {
        switch self {
        case .journal(let message): return message
        case .target(let message): return message
        case .invalidOptions(let message): return message
        case .invalidInput(let problems, let file):
            let shown = problems.prefix(50).map { "\(file): \($0)" }
            let more = problems.count > 50 ? ["… and \(problems.count - 50) more"] : []
            return (shown + more).joined(separator: "\n")
        }
    }
}
