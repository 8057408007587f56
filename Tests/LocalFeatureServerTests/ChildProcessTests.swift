import Foundation
import LocalFeatureServer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// ChildProcess runs real commands (`sh`, `ls`) and reads their outputs back.
@Suite struct ChildProcessTests {
    @Test("standard output and error are kept apart, the exit status is the command's, standard input is empty")
    func outputsAndStatus() throws {
        let result = try ChildProcess.run(["sh", "-c", "cat; printf out; printf err >&2; exit 3"])
        #expect(result.status == 3)
        #expect(result.output == Array("out".utf8) && result.errors == Array("err".utf8))
    }

    @Test("a command ended by a signal reports 128 plus the signal")
    func signalled() throws {
        #expect(try ChildProcess.run(["sh", "-c", "kill -TERM $$"]).status == 128 + SIGTERM)
    }

    @Test("a command that is not installed is a start error that says so")
    func notInstalled() {
        #expect {
            _ = try ChildProcess.run(["featureload-no-such-command"])
        } throws: { error in
            let error = try #require(error as? ChildProcess.StartError)
            return error.isNotFound && error.description == "featureload-no-such-command is not installed (not found on PATH)"
        }
    }

    /// 1,500 descriptors open (more than fill the 32 KiB directory buffer Foundation's Process.run reads past),
    /// none of them close-on-exec: the child sees only its standard three and the directory `ls` itself opens.
    @Test("with 1,500 inheritable descriptors open, the child inherits none of them")
    func descriptorsAreNotInherited() throws {
        let opened = (0..<1_500).map { _ in open("/dev/null", O_RDONLY) }
        defer { for descriptor in opened { close(descriptor) } }
        #expect(opened.allSatisfy { $0 >= 0 })
        let result = try ChildProcess.run(["ls", "/proc/self/fd"])
        #expect(result.status == 0)
        let listed = String(decoding: result.output, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        #expect(listed.count <= 4 && Set(listed).isSuperset(of: [0, 1, 2]), "\(listed.prefix(10)) …")
    }
}
