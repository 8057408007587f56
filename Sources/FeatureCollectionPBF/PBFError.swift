/// Why an `f=pbf` answer could not be written or read.
public struct PBFError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for a person to act on.
    public let description: String

    private init(_ description: String) { self.description = description }

    /// The bytes are not a FeatureCollection answer.
    static func malformed(_ reason: String) -> PBFError { PBFError("not a FeatureCollection PBF answer: \(reason)") }

    /// A coordinate cannot be an integer of the answer's grid.
    static func offGrid(_ reason: String) -> PBFError { PBFError("cannot encode the geometry as PBF: \(reason)") }
}
