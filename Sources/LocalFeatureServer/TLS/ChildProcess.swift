import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A short command run to its end with `posix_spawnp`: standard input from `/dev/null`, standard output and error
/// each into an unlinked temporary file, read back when it exits; signals unblocked and at their defaults.
///
/// Why not Foundation's `Process`: on Linux, `Process.run` finds the highest open descriptor by reading
/// `/proc/self/fd` and copies each entry's whole 256-byte name out of the directory buffer; once about 1,365
/// descriptors are open (a test process with hundreds of servers and clients, or a busy `serve`) the last entry sits
/// near the end of glibc's 32 KiB buffer and the copy reads past it, which crashed a test run with SIGSEGV. Here the
/// child closes every descriptor above standard error itself (`posix_spawn_file_actions_addclosefrom_np`, glibc
/// 2.34), so nothing is read and nothing leaks into it, however many descriptors are open.
package enum ChildProcess {
    package struct Result: Sendable {
        /// The exit status, or 128 plus the signal that ended it.
        package var status: Int32
        package var output: [UInt8]
        package var errors: [UInt8]
    }

    package struct StartError: Error, CustomStringConvertible, Sendable {
        package var command: String
        package var code: Int32

        /// Whether the command was not found on `PATH`.
        package var isNotFound: Bool { code == ENOENT }

        package var description: String {
            isNotFound ? "\(command) is not installed (not found on PATH)" : "cannot start \(command): \(String(cString: strerror(code)))"
        }
    }

    /// Runs `arguments` (the first found on `PATH`) and waits for it to exit. Blocks the calling thread.
    /// - Throws: ``StartError`` when it cannot be started (ENOENT: not installed).
    package static func run(_ arguments: [String]) throws(StartError) -> Result {
        precondition(!arguments.isEmpty, "a command needs its name")
        let failed = { (code: Int32) in StartError(command: arguments[0], code: code) }
        let output = try temporaryFile()
        let errors = try temporaryFile()
        defer {
            close(output)
            close(errors)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, errors, 2)
        closeDescriptorsAboveStandardError(&actions)
        // Signals as a new program expects them, whatever this process blocks or ignores.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid = pid_t()
        let started = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        guard started == 0 else { throw failed(started) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw failed(errno) }
        }
        let signal = status & 0x7f
        return Result(status: signal == 0 ? (status >> 8) & 0xff : 128 + signal, output: contents(of: output), errors: contents(of: errors))
    }

    /// A new file, already unlinked, open for reading and writing (and closed in every other child).
    private static func temporaryFile() throws(StartError) -> Int32 {
        var template = Array((NSTemporaryDirectory() + "/featureload-child-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw StartError(command: "a temporary file", code: errno) }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return descriptor
    }

    /// Everything written to `descriptor`, from its start.
    private static func contents(of descriptor: Int32) -> [UInt8] {
        lseek(descriptor, 0, SEEK_SET)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return bytes }
            bytes += chunk[0..<count]
        }
    }

    /// Asks the child to close every descriptor from 3 up, where the C library can (glibc 2.34 and later, found at
    /// run time since Swift's Glibc module leaves the GNU extension out); elsewhere descriptors opened close-on-exec
    /// (as SwiftNIO's, libcurl's and SQLite's are) are the only ones kept from it.
    private static func closeDescriptorsAboveStandardError(_ actions: inout posix_spawn_file_actions_t) {
        #if os(Linux)
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
        #endif
    }
}
