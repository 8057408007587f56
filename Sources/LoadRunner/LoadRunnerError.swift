/// Why a run could not be carried out (as opposed to a run that ran and failed its gates).
public struct LoadRunnerError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
