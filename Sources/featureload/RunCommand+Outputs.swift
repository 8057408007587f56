import FeatureServiceClient
import Foundation
import LoadRunner
import LocalFeatureServer

/// What `run` writes, checked and opened before any load: no output may be a file the run reads or keeps, or another
/// output; the report directory must be one; the request-sample files are opened, so that one that cannot be stops
/// the run at once.
extension RunCommand {
    /// Refuses outputs that would write over an input or each other, checks the report directory, and opens the
    /// request-sample files. When samples stream to standard output (`--out csv=-`), the run's own lines (progress,
    /// summary, report paths, CI annotations) go to standard error from here on, so that a pipe reads the samples
    /// alone.
    /// - Returns: The writer of the request samples, or nil when no `--out csv=`/`json=` names one.
    /// - Throws: ``TargetError`` naming the option, the path and the input it would overwrite; ``LoadRunnerError``
    ///   for a report directory that is not one or a sample file that cannot be opened.
    func openOutputs(reading settings: TargetSettings) throws -> RawSampleWriter? {
        let files = rawOutputs.map { OutputFile($0.path, option: "--out \($0.format.rawValue)=") }
        try OutputPaths.check(files, against: inputs(of: settings), command: "run")
        try ReportWriter.checkWritable(reportDirectory)
        guard !rawOutputs.isEmpty else { return nil }
        let standardOutput = files.contains(where: \.isStandardOutput) ? try Self.keepStandardOutputForSamples() : STDOUT_FILENO
        return try RawSampleWriter(destinations: rawOutputs, standardOutput: standardOutput)
    }

    /// What the run reads or keeps: the scenario file, and for the embedded service its data file (with SQLite's
    /// `-wal` and `-shm` beside it) and dataset file; the CA file of a live one.
    func inputs(of settings: TargetSettings) -> [(what: String, path: String)] {
        var kept = [(what: "the scenario file", path: scenarioFile)]
        if case .local(let dataset, let dataPath) = settings.location {
            if let dataPath { for suffix in ["", "-wal", "-shm"] { kept.append(("the data file", dataPath + suffix)) } }
            let directory = FileManager.default.currentDirectoryPath
            if let file = DatasetCatalog.file(for: dataset, workingDirectory: directory) { kept.append(("the dataset file", file)) }
        }
        if let caFile = settings.tls.caFile { kept.append(("the CA file", caFile)) }
        return kept
    }

    /// Keeps standard output for the request samples: returns a new descriptor of it (closed on exec, so generator
    /// processes never hold it) and points descriptor 1, where the run prints, at standard error.
    /// - Throws: ``TargetError`` when the descriptors cannot be duplicated.
    private static func keepStandardOutputForSamples() throws -> Int32 {
        fflush(nil)
        let kept = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)
        guard kept >= 0, dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else {
            throw TargetError("--out csv=-: cannot keep standard output for the request samples (\(String(cString: strerror(errno))))")
        }
        return kept
    }
}
