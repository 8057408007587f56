#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads an ``HTTPRequest/Body`` front to back, once, into buffers that a transport supplies.
///
/// In-memory runs are copied; file ranges are read with `pread` in buffer-sized chunks, each file opened when its
/// range starts and closed when it ends, so memory use stays at one buffer whatever the file's size. Exactly
/// ``HTTPRequest/Body/contentLength`` bytes come out: a file that shrank since the body was built is a failure
/// (never a short body), and bytes a file gained are not read.
///
/// There is no rewind: a transport that lost the connection mid-request cannot start the body over by itself, so
/// an edit is never resent without its caller deciding to (see ``ExactlyOnceRule``).
///
/// Not thread-safe: one reader belongs to one transfer, used on one thread (curl's driver thread). Blocking file
/// reads happen on that thread; the chunks are small (libcurl's upload buffer, 64 KiB by default).
final class BodyReader {
    /// Why a body could not be read.
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        let description: String
    }

    private let segments: [MultipartBody.Segment]
    private var index = 0
    /// Bytes of `segments[index]` already read.
    private var offset: Int64 = 0
    private var descriptor: Int32 = -1
    /// The first failure; every later read fails the same way.
    private(set) var failure: Failure?
    /// Bytes handed out so far.
    private(set) var bytesRead: Int64 = 0

    /// A reader positioned at the start of `body`.
    init(_ body: HTTPRequest.Body) {
        switch body {
        case .bytes(let bytes): segments = bytes.isEmpty ? [] : [.bytes(bytes)]
        case .multipart(let multipart): segments = multipart.segments
        }
    }

    deinit { closeFile() }

    /// Fills `buffer` with the next bytes of the body.
    /// - Returns: The number of bytes written, 0 at the end of the body.
    /// - Throws: ``Failure`` when a file cannot be opened or read, or ends before its range does.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
        if let failure { throw failure }
        var written = 0
        while written < buffer.count && index < segments.count {
            let room = buffer.count - written
            switch segments[index] {
            case .bytes(let bytes):
                let count = min(room, bytes.count - Int(offset))
                bytes.withUnsafeBytes { source in
                    (buffer.baseAddress! + written).copyMemory(from: source.baseAddress! + Int(offset), byteCount: count)
                }
                written += count
                offset += Int64(count)
            case .file(let range):
                let count = try readFile(range, into: UnsafeMutableRawBufferPointer(rebasing: buffer[written...]))
                written += count
                offset += Int64(count)
            }
            if offset == segments[index].length {
                closeFile()
                index += 1
                offset = 0
            }
        }
        bytesRead += Int64(written)
        return written
    }

    /// Reads the next bytes of `range` (at most its remaining length) into `buffer`.
    private func readFile(_ range: MultipartBody.FileRange, into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
        if descriptor < 0 {
            descriptor = open(range.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw fail("cannot open \(range.path) (errno \(errno))") }
        }
        let wanted = Int(min(Int64(buffer.count), range.length - offset))
        while true {
            let count = pread(descriptor, buffer.baseAddress, wanted, off_t(range.offset + offset))
            if count > 0 { return count }
            if count < 0 && errno == EINTR { continue }
            if count == 0 {
                let missing = range.length - offset
                throw fail("\(range.path) ended \(missing) bytes before the range sent in Content-Length; was it changed while sending?")
            }
            throw fail("cannot read \(range.path) (errno \(errno))")
        }
    }

    private func fail(_ message: String) -> Failure {
        closeFile()
        let failure = Failure(description: "request body: " + message)
        self.failure = failure
        return failure
    }

    private func closeFile() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }
}
