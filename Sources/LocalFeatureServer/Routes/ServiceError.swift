import FeatureModel

/// An operation error that the server answers with the ArcGIS envelope `{"error":{code,message,details}}`.
///
/// Thrown by parameter parsing, the routes and the store; ``FeatureServerResponder`` renders it with HTTP 200,
/// as ArcGIS does (the envelope's `code` carries 400/404/500).
struct ServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body's `error` object.
    var error: ArcGISError

    init(_ error: ArcGISError) { self.error = error }

    var description: String { error.description }

    /// The message ArcGIS uses for most operation failures.
    static let unableToComplete = "Unable to complete operation."

    /// A parameter that could not be read: code 400, details `'<name>' parameter is invalid` and, if known, the reason.
    static func invalidParameter(_ name: String, reason: String? = nil) -> ServiceError {
        var details = ["'\(name)' parameter is invalid"]
        if let reason { details.append(reason) }
        return ServiceError(ArcGISError(code: 400, message: unableToComplete, details: details))
    }

    /// The fixed answer to any rejected `where` clause (the reason goes to the log only, as on ArcGIS).
    static let invalidWhere = ServiceError(
        ArcGISError(code: 400, message: unableToComplete, details: ["'where' parameter is invalid"])
    )

    /// A request body that could not be read as a form.
    static func malformedBody(_ reason: String) -> ServiceError {
        ServiceError(ArcGISError(code: 400, message: unableToComplete, details: ["Request body is malformed: \(reason)"]))
    }

    /// An unknown service, layer or operation: code 404.
    static func notFound(_ what: String) -> ServiceError {
        ServiceError(ArcGISError(code: 404, message: "Requested operation is not supported or resource does not exist.", details: [what]))
    }

    /// An unexpected failure inside the server: code 500.
    static func internalError(_ reason: String) -> ServiceError {
        ServiceError(ArcGISError(code: 500, message: unableToComplete, details: [reason]))
    }

    /// applyEdits with `rollbackOnFailure=true` and at least one failed edit: nothing was written.
    ///
    /// The shape ArcGIS documents: code 400, extendedCode -2147207418, the failures, then "Operation rolled back.".
    static func rolledBack(_ failures: [String]) -> ServiceError {
        ServiceError(
            ArcGISError(
                code: 400,
                message: unableToComplete,
                details: failures + ["Operation rolled back."],
                extendedCode: -2_147_207_418
            )
        )
    }
}
