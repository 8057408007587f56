import Foundation

/// Any error in the words of the person at the terminal: what went wrong in the file, option or service they named,
/// never the name of a Swift type (`DecodingError.dataCorrupted`, `CancellationError()`, `NSCocoaErrorDomain`).
enum UserMessage {
    static func describe(_ error: any Error) -> String {
        switch error {
        case is CancellationError:
            return "interrupted"
        case let decoding as DecodingError:
            return describe(decoding)
        case let cocoa as CocoaError:
            return describe(cocoa)
        default:
            let nsError = error as NSError
            // Foundation's own errors (a file that cannot be read or written) say which file and why.
            if nsError.domain == NSCocoaErrorDomain || nsError.domain == NSPOSIXErrorDomain {
                return describe(CocoaError(CocoaError.Code(rawValue: nsError.code), userInfo: nsError.userInfo))
            }
            return String(describing: error)
        }
    }

    /// A JSON file that is not what was expected: where in the file, and what was wrong there.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return keys.isEmpty ? "at the top level" : "at \(keys.hasPrefix(".") ? String(keys.dropFirst()) : keys)"
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "not valid JSON (cut short, or not JSON at all)"
        case .dataCorrupted(let context):
            return "a value that cannot be read \(path(context)): " + trimmed(context.debugDescription)
        case .keyNotFound(let key, let context):
            return "the field `\(key.stringValue)` is missing \(path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "a value of the wrong kind \(path(context)): " + trimmed(context.debugDescription)
        @unknown default:
            return "not the JSON expected"
        }
    }

    /// A sentence's text without its final period, to be followed by more.
    private static func trimmed(_ text: String) -> String {
        text.hasSuffix(".") ? String(text.dropLast()) : text
    }

    /// `error` in words, leaving out the file's path when the caller prints it already.
    static func describe(_ error: any Error, naming file: String) -> String {
        let text = describe(error)
        for prefix in [file + ": ", URL(fileURLWithPath: file).path + ": "] where text.hasPrefix(prefix) {
            return String(text.dropFirst(prefix.count))
        }
        return text
    }

    private static func describe(_ error: CocoaError) -> String {
        let file = error.filePath ?? error.url?.path
        let subject = file.map { "\($0): " } ?? ""
        // On Linux the system's reason (EISDIR, ENOENT…) is kept as the underlying error.
        if let underlying = error.userInfo[NSUnderlyingErrorKey].flatMap({ $0 as? any Error }).map({ $0 as NSError }),
            underlying.domain == NSPOSIXErrorDomain, let reason = strerror(Int32(underlying.code))
        {
            return subject + String(cString: reason).lowercased()
        }
        switch error.code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return subject + "no such file"
        case .fileReadNoPermission, .fileWriteNoPermission: return subject + "permission denied"
        case .fileWriteOutOfSpace: return subject + "no space left on the device"
        case .fileWriteVolumeReadOnly: return subject + "the volume is read-only"
        case .fileReadCorruptFile: return subject + "not valid JSON"
        case .fileReadTooLarge: return subject + "too large to read"
        case .fileReadInapplicableStringEncoding: return subject + "not UTF-8 text"
        default:
            return subject + (file == nil ? "the file could not be read or written" : "could not be read or written")
        }
    }
}
