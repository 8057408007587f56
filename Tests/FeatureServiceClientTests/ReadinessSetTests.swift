#if os(Linux)
import CCurl
@testable import FeatureServiceClient
import Glibc
import Testing

/// The driver's epoll set, driven the way libcurl's socket callback drives it, with real sockets.
@Suite struct ReadinessSetTests {
    /// A connected pair of Unix sockets: (the end the set watches, the end the test writes to).
    static func pair() throws -> (watched: Int32, peer: Int32) {
        var descriptors: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0 else {
            throw PeerError(message: "socketpair failed (errno \(errno))")
        }
        return (descriptors[0], descriptors[1])
    }

    /// The sockets the set reports ready within `milliseconds`, the wakeup and unwanted ones left out.
    static func ready(_ set: ReadinessSet, within milliseconds: Int32) -> [Int32] {
        var descriptors = [Int32](repeating: -1, count: 64)
        var bits = [Int32](repeating: 0, count: 64)
        let count = Int(ccurl_epoll_wait(set.epoll, &descriptors, &bits, 64, milliseconds))
        return descriptors.prefix(max(0, count)).filter { set.wants($0) }
    }

    @Test(
        "a socket libcurl stopped asking for, closed without a word and its number reused, is watched again when asked for"
    )
    func reusedNumber() throws {
        let set = try ReadinessSet()
        // A socket watched for reading, then no longer (a keep-alive connection back in libcurl's cache): it stays
        // in the set, as far as the set knows.
        let first = try Self.pair()
        set.watch(first.watched, what: CURL_POLL_IN)
        set.watch(first.watched, what: CURL_POLL_REMOVE)
        // libcurl 7.88 closes some sockets without telling (the resolver's, a connect that never finished), and the
        // next socket gets the lowest free number. dup2 does both at once, so no other thread takes the number.
        let second = try Self.pair()
        try #require(dup2(second.watched, first.watched) == first.watched)
        close(second.watched)
        close(first.peer)
        let reused = first.watched
        defer {
            close(reused)
            close(second.peer)
        }
        set.watch(reused, what: CURL_POLL_IN)
        var byte: UInt8 = 1
        #expect(write(second.peer, &byte, 1) == 1)
        #expect(Self.ready(set, within: 1000) == [reused], "the new socket's readiness reaches libcurl")
        #expect(set.unwatchable.isEmpty)
    }

    @Test("readiness of a socket libcurl no longer asks for is not handed on, and takes it out of the set")
    func unwantedReadiness() throws {
        let set = try ReadinessSet()
        let sockets = try Self.pair()
        defer {
            close(sockets.watched)
            close(sockets.peer)
        }
        set.watch(sockets.watched, what: CURL_POLL_IN)
        set.watch(sockets.watched, what: CURL_POLL_REMOVE)
        // The peer closes the idle connection: readable (end of stream) from now on.
        shutdown(sockets.peer, Int32(SHUT_WR))
        #expect(Self.ready(set, within: 1000).isEmpty)
        // Out of the set: a level-triggered set would otherwise report it on every wait.
        var descriptors = [Int32](repeating: -1, count: 8)
        var bits = [Int32](repeating: 0, count: 8)
        #expect(ccurl_epoll_wait(set.epoll, &descriptors, &bits, 8, 50) == 0)
        // Asked for again, it is watched again.
        set.watch(sockets.watched, what: CURL_POLL_IN)
        #expect(Self.ready(set, within: 1000) == [sockets.watched])
    }

    @Test("a socket the set cannot take is kept for the driver to fail, not refused to libcurl")
    func unwatchable() throws {
        let set = try ReadinessSet()
        // A regular file cannot go into an epoll set (EPERM).
        let file = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)
        try #require(file >= 0)
        defer { close(file) }
        set.watch(file, what: CURL_POLL_IN)
        #expect(set.unwatchable == [file])
    }
}
#endif
