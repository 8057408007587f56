import ArgumentParser

/// The exit codes of featureload's commands, in one place so every command and the docs agree.
enum ExitStatus: Int32, CaseIterable {
    /// Every threshold, gate and verification passed; every edit applied.
    case passed = 0
    /// A threshold, gate or verification failed; or (apply) some edits were rejected or failed.
    case failed = 1
    /// The input (scenario file, edits file) is invalid, or the run could not start (target unreachable, bad output folder).
    case invalidInput = 2
    /// (verify) What the journal settled holds, but the job is unfinished: edits in doubt or not sent, which
    /// `apply --resume` settles.
    case incomplete = 3
    /// A command-line usage error (unknown option, bad value), reported by the argument parser (EX_USAGE).
    case usage = 64
    /// Interrupted by SIGINT or SIGTERM; what ran so far was reported.
    case interrupted = 130

    /// The `ExitCode` to throw for this status.
    var code: ExitCode { ExitCode(rawValue) }

    /// One line per status, for `--help` discussions.
    static let helpText = """
        Exit codes: 0 passed; 1 a threshold, gate or verification failed; 2 invalid input or the run could not \
        start; 3 (verify) an unfinished apply, which --resume finishes; 64 command-line usage error; 130 interrupted (reports still written).
        """
}
