import ArgumentParser
import LocalFeatureServer

extension ServeCommand {
    /// Fills `configuration`'s token security, request limit and faults from the options.
    /// - Throws: `ValidationError` for a malformed size; `LocalFeatureServerError` for an unreadable users file or an
    ///   invalid fault specification (its description names the option or file and every problem).
    func applySecurityAndFaultOptions(to configuration: inout LocalFeatureServerConfiguration) throws {
        guard let bodyLimit = Self.byteCount(maxRequestBody), bodyLimit >= 1024 else {
            throw ValidationError("--max-request-body must be a size of at least 1K, like 65536, 512K or 64M; got '\(maxRequestBody)'")
        }
        configuration.limits.maximumRequestBodySize = bodyLimit
        guard let attachmentLimit = Self.byteCount(maxAttachmentSize), attachmentLimit >= 1024 else {
            throw ValidationError("--max-attachment-size must be a size of at least 1K, like 10M or 1G; got '\(maxAttachmentSize)'")
        }
        configuration.limits.maximumAttachmentSize = attachmentLimit
        if let users {
            configuration.auth.users = try UserDirectory(contentsOfFile: users)
            configuration.auth.tokenErrorsUseHTTPStatus = tokenErrorsHttpStatus
        }
        var settings = try faults.map { try LocalFeatureServerConfiguration.Faults(contentsOfFile: $0) } ?? LocalFeatureServerConfiguration.Faults()
        for specification in fault { settings.rules.append(try FaultRule(specification: specification)) }
        if let latency { settings.latency = try FaultLatency(specification: latency) }
        if let faultSeed { settings.seed = faultSeed }
        settings.isAdminEnabled = !noAdmin
        try settings.validate(source: "--fault options")
        configuration.faults = settings
    }

    /// Bytes in `text`: digits with an optional K, M or G suffix (powers of 1024); nil when malformed.
    static func byteCount(_ text: String) -> Int? {
        let upper = text.uppercased()
        let multipliers: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        if let last = upper.last, let multiplier = multipliers[last] {
            guard let value = Int(upper.dropLast()), value >= 0, value <= Int.max / multiplier else { return nil }
            return value * multiplier
        }
        return Int(upper).flatMap { $0 >= 0 ? $0 : nil }
    }
}
