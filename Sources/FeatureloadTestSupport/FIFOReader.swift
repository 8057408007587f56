import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A FIFO made for a test, read on a thread of its own as a pipeline's next command would read it: everything its
/// writers send until the last one closes it.
///
/// The reader opens its end at once without waiting for a writer, so a test whose writer never comes (the FIFO was
/// replaced by a file, say) ends with ``finish(within:)`` rather than hanging.
package final class FIFOReader: Sendable {
    /// The FIFO's path.
    package let path: String
    private let state = Mutex<(bytes: [UInt8], stop: Bool, done: Bool)>(([], false, false))

    /// Makes a FIFO at `path` and starts reading it.
    /// - Throws: `POSIXError` when the FIFO cannot be made or opened.
    package init(makingFIFOAt path: String) throws {
        self.path = path
        guard mkfifo(path, 0o644) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        Thread {
            self.drain(descriptor)
            close(descriptor)
        }.start()
    }

    /// What was read, once a writer came and went; after `timeout` without that, what was read so far.
    package func finish(within timeout: Duration = .seconds(10)) async -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        while !state.withLock({ $0.done }) && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return state.withLock { state in
            state.stop = true
            return state.bytes
        }
    }

    /// Whether the path still names a FIFO.
    package var isFIFO: Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
    }

    /// Reads until a writer has connected and every writer has closed (poll reports the hang-up only after a writer
    /// came), or until told to stop.
    private func drain(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !state.withLock({ $0.stop }) {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, 50) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                state.withLock { $0.bytes.append(contentsOf: buffer[0..<count]) }
            } else if count == 0 && request.revents & Int16(POLLHUP) != 0 {
                break
            }
        }
        state.withLock { $0.done = true }
    }
}
