import FeatureServiceClient
import Foundation

extension OutputFile {
    /// Writes a command's whole output by ``OutputFile``'s rules, or says why it could not (naming the option and the
    /// path, with the fix) and exits 2.
    /// - Throws: `ExitCode` 2 when the output cannot be written.
    func write(_ data: Data, for command: String) throws {
        do {
            try write(data)
        } catch {
            printError("featureload \(command): \(error)")
            throw ExitStatus.invalidInput.code
        }
    }
}
