/// Why a run could not be carried out (as opposed to a run that ran and failed its gates).
package struct LoadRunnerError: Error, Sendable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) { self.description = description }
}
