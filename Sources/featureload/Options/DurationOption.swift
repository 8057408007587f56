import ArgumentParser
import LoadRunner

/// Reads the duration an option was given (`--request-timeout`, `--wait-for-service`, `--progress-interval`), so
/// that every duration option refuses the same texts with the same words.
enum DurationOption {
    /// The duration written in `text`, the value of `option`.
    /// - Parameters:
    ///   - allowZero: whether `0` (or `0s`) is allowed; otherwise the duration must be above 0.
    ///   - examples: values to suggest, e.g. `30s, 500ms or 2m`.
    /// - Throws: `ValidationError` naming the option, the text and what to write instead: for text that is not a
    ///   duration, a duration of 0 where one above 0 is needed, or one longer than ``DurationText/maximum``.
    static func parse(_ text: String, option: String, allowZero: Bool = false, examples: String) throws -> Duration {
        let longest = DurationText.format(DurationText.maximum)
        let duration: Duration
        do throws(DurationText.Problem) {
            duration = try DurationText.read(text)
        } catch .tooLong {
            throw ValidationError("\(option) '\(text)' is \(DurationText.Problem.tooLong); give at most \(longest), e.g. \(examples)")
        } catch {
            throw ValidationError("\(option) '\(text)' is not a duration; write e.g. \(examples)")
        }
        guard duration > .zero || allowZero else {
            throw ValidationError("\(option) '\(text)' is not a duration above 0; write e.g. \(examples)")
        }
        return duration
    }
}
