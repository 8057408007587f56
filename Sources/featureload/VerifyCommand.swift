import ArgumentParser
import BatchApply
import Foundation
import Logging

/// `featureload verify JOURNAL`: checks an apply's journal against the service.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check that a service holds exactly what an apply's journal says it applied.",
        discussion: """
            Queries the service of the journal's run: every applied add is there exactly once, under the objectId \
            recorded; no add that was rejected or failed is there; every applied delete is gone. Adds an apply did \
            not settle (it stopped, by a crash or Ctrl-C, before their answers or before sending them) are in doubt, \
            not wrong: verify counts those the service holds, and `featureload apply --resume` records them as \
            applied and sends the rest. Exit 0 when it all holds, 1 on a mismatch, 3 when it holds but the apply is \
            unfinished, 2 when the journal or the service cannot be read.
            """)

    @Argument(help: ArgumentHelp("The journal of a `featureload apply`.", valueName: "journal"))
    var journal: String

    @OptionGroup var targetOptions: TargetOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = logging.makeLogger(label: "featureload.verify")
        let serverLogger = LoggingOptions.serverLogger(beside: logger)
        do {
            let journal = try ApplyJournal.open(at: self.journal)
            let header = try journal.header()
            var options = targetOptions
            if header.target == "local" {
                options.data = options.data ?? header.localData
                // The embedded service would make a missing file afresh, and every applied add would look missing.
                if let data = options.data, !FileManager.default.fileExists(atPath: data) {
                    throw ApplyError.journal(
                        "no service data at \(data): the run applied to the embedded service's SQLite file\(header.localData.map { " \($0)" } ?? ""). Fix: give --data the file that run wrote"
                    )
                }
            }
            let settings = try TargetResolution.settings(
                to: header.target, dataset: header.localDataset ?? "parks", options: options, recorded: header.access, concurrency: 4)
            let finding = try await withTarget(settings, serverLogger: serverLogger) { connected in
                try await JournalVerifier(journal: journal, service: connected.service).verify()
            }
            print("verify: \(finding.summary)")
            if !finding.passed { throw ExitStatus.failed.code }
            if !finding.complete { throw ExitStatus.incomplete.code }
        } catch let error as ExitCode {
            throw error
        } catch {
            printError("featureload verify: \(UserMessage.describe(error))")
            throw ExitStatus.invalidInput.code
        }
    }
}
