import FeatureServiceClient
import Foundation
import LoadRunner

/// Hands a finished run to the CI system it runs in: the job summary and the failures as annotations
/// (``CISummary``). Nothing happens outside CI.
enum CIReporting {
    /// Appends the job summary to `$GITHUB_STEP_SUMMARY` when it is set, and prints each failure as the CI's own
    /// annotation line (GitHub Actions, GitLab CI).
    static func publish(_ report: RunReport, folder: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty {
            do {
                try append(CISummary.markdown(report, reportFolder: folder), to: path)
            } catch {
                printError(
                    "featureload: warning: could not append the job summary to GITHUB_STEP_SUMMARY (\(path)): \(UserMessage.describe(error, naming: path))"
                )
            }
        }
        for line in CISummary.annotations(report, environment: environment) { print(line) }
    }

    /// Appends `text` to the file at `path`, creating it when missing (other steps write to the same summary); a
    /// link is followed and nothing is replaced.
    static func append(_ text: String, to path: String) throws {
        try OutputFile(path, option: "GITHUB_STEP_SUMMARY").append(text.utf8)
    }
}
