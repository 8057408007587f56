import FeatureModel
import FeatureServiceClient
import Foundation

/// Any error in the words of the person at the terminal: what went wrong in the file, option or service they named,
/// never the name of a Swift type (`DecodingError.dataCorrupted`, `CancellationError()`, `NSCocoaErrorDomain`).
enum UserMessage {
    static func describe(_ error: any Error) -> String {
        switch error {
        case is CancellationError:
            return "interrupted"
        case let decoding as DecodingError:
            return DecodingProblem.describe(decoding)
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

    /// `error` in words, leaving out the file's path when the caller prints it already (and, for an output that
    /// could not be written, the fix, which the caller gives in its own terms).
    static func describe(_ error: any Error, naming file: String) -> String {
        if let failure = error as? OutputFile.Failure { return failure.reason }
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
