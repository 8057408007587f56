/// Why `featureload apply` could not do its work, phrased for the person running it.
package enum ApplyError: Error, Sendable, CustomStringConvertible {
    /// The journal cannot be made, opened or read.
    case journal(String)
    /// The input cannot be read or does not fit the layer: the first problems, each with its position, and how many
    /// there are.
    case invalidInput([InputProblem], file: String, total: Int)
    /// The target's layer cannot take the edits (no such layer, no GlobalID field for adds).
    case target(String)
    /// The command's options cannot be used (an `--attachments` directory that is not there).
    case invalidOptions(String)
    /// The service could not be reached for `--wait-for-service`: how long, and how it failed.
    case unavailable(String)

    package var description: String {
        switch self {
        case .journal(let message): return message
        case .target(let message): return message
        case .invalidOptions(let message): return message
        case .unavailable(let message): return message
        case .invalidInput(let problems, let file, let total):
            let shown = problems.prefix(50).map { "\(file): \($0)" }
            let more = total > shown.count ? ["… and \(total - shown.count) more"] : []
            let closing =
                "\(total == 1 ? "1 record is" : "\(total) records are") invalid, so nothing was sent. Fix: correct \(total == 1 ? "it" : "them"), or give --skip-invalid to send the valid records and write the invalid ones to the rejects file"
            return (shown + more + [closing]).joined(separator: "\n")
        }
    }
}
