import FeatureModel
import FeatureServiceClient
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CurlTransport's driver thread as a task executor: tasks that prefer it run there, and go on elsewhere once the
/// transport has stopped.
@Suite struct CurlDriverExecutorTests {
    /// The calling thread's name (Linux keeps 15 characters); nil where names cannot be read.
    static func threadName() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) else { return nil }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The calling thread's kernel id, from /proc/thread-self ("PID/task/TID"); nil where it cannot be read.
    static func threadID() -> Int? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") else { return nil }
        return target.split(separator: "/").last.flatMap { Int($0) }
    }

    /// User plus system CPU time of thread `id` of this process, in clock ticks (/proc/self/task/ID/stat).
    static func cpuTicks(thread id: Int) throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8)
        // Fields after the parenthesised name: state is field 3, utime 14 and stime 15.
        let fields = text[text.index(after: try #require(text.lastIndex(of: ")")))...].split(separator: " ")
        return try #require(Int(fields[11])) + #require(Int(fields[12]))
    }

    @Test(
        "a keep-alive connection the peer closes while idle costs the sleeping driver no CPU, and the next request opens a new one",
        .timeLimit(.minutes(1)))
    func idleConnectionClosedByPeer() async throws {
        let peer = try LoopbackPeer(closingAfterEachAnswer: ()) { _ in LoopbackPeer.response(body: Array("ok".utf8)) }
        defer { peer.stop() }
        try await withCurlTransport { transport in
            let executor = try #require(transport.taskExecutor)
            // Linux always has /proc; without it the test could measure nothing, so that is a failure, not a pass.
            let driver = try #require(await Task(executorPreference: executor, operation: { Self.threadID() }).value, "no thread ID from /proc")
            let first = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(peer.port)/one"))
            #expect(first.status == 200)
            // The peer has closed the connection libcurl keeps: its socket reads as ready from now on. Waiting on it
            // again and again would spin the driver for the whole pause.
            try await Task.sleep(for: .milliseconds(100))
            let before = try Self.cpuTicks(thread: driver)
            try await Task.sleep(for: .milliseconds(800))
            let spent = try Self.cpuTicks(thread: driver) - before
            #expect(spent <= 10, "the driver used \(spent) clock ticks while it had nothing to do")
            let second = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(peer.port)/two"))
            #expect(second.status == 200)
            #expect(transport.statistics.connectionsOpened == 2)
        }
        #expect(peer.connections == 2)
    }

    @Test("connections the peer closes after every answer are replaced, whatever descriptor numbers come back", .timeLimit(.minutes(1)))
    func connectionsReplaced() async throws {
        let peer = try LoopbackPeer(closingAfterEachAnswer: ()) { request in LoopbackPeer.response(body: request.body) }
        defer { peer.stop() }
        try await withCurlTransport(configuration: .init(maxConnections: 4)) { transport in
            let executor = try #require(transport.taskExecutor)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<4 {
                    group.addTask(executorPreference: executor) {
                        for index in 0..<40 {
                            // A connection closed by the peer fails the request reusing it only if the close is not yet
                            // seen; the next attempt then opens a new one.
                            var answer: HTTPResponse?
                            for _ in 0..<3 where answer == nil {
                                answer = try? await transport.send(
                                    .form(url: "http://127.0.0.1:\(peer.port)/echo", fields: [.init("t", String(task)), .init("i", String(index))]))
                            }
                            #expect(answer.map { String(decoding: $0.body, as: UTF8.self) } == "t=\(task)&i=\(index)")
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(transport.statistics.connectionsOpened >= 160)
        }
    }

    @Test("tasks that prefer the driver run on its thread between their requests, and every request completes", .timeLimit(.minutes(1)))
    func tasksRunOnDriver() async throws {
        let peer = try LoopbackPeer { request in LoopbackPeer.response(body: request.body) }
        defer { peer.stop() }
        try await withCurlTransport(configuration: .init(maxConnections: 4)) { transport in
            let executor = try #require(transport.taskExecutor)
            let results = try await withThrowingTaskGroup(of: (task: Int, bodies: [String], threads: Set<String>).self) { group in
                for task in 0..<4 {
                    group.addTask(executorPreference: executor) {
                        var bodies: [String] = []
                        var threads: Set<String> = []
                        for index in 0..<25 {
                            let response = try await transport.send(
                                .form(url: "http://127.0.0.1:\(peer.port)/echo", fields: [.init("t", String(task)), .init("i", String(index))]))
                            #expect(response.status == 200)
                            bodies.append(String(decoding: response.body, as: UTF8.self))
                            if let name = Self.threadName() { threads.insert(name) }
                        }
                        return (task, bodies, threads)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 4)
            for result in results {
                #expect(result.bodies == (0..<25).map { "t=\(result.task)&i=\($0)" })
                if Self.threadName() != nil {
                    // Resumed by the response on the thread that received it, every time.
                    #expect(result.threads == ["featureload-crl"])
                }
            }
            #expect(transport.statistics.transfersCompleted == 100)
            #expect(transport.statistics.connectionsOpened <= 4)
        }
        #expect(peer.requests.count == 100)
    }

    @Test("a task that prefers the driver goes on after shutdown: its request fails and it finishes elsewhere", .timeLimit(.minutes(1)))
    func goesOnAfterShutdown() async throws {
        let peer = try LoopbackPeer()
        defer { peer.stop() }
        let transport = try CurlTransport()
        let executor = try #require(transport.taskExecutor)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask(executorPreference: executor) {
                let error = try await #require(throws: TransportError.self) {
                    try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(peer.port)/slow"))
                }
                #expect(error.kind == .shutdown)
                // The driver has stopped: what the task does next still runs, on another thread.
                try await Task.sleep(for: .milliseconds(10))
                if Self.threadName() != nil { #expect(Self.threadName() != "featureload-crl") }
            }
            let connection = try #require(try await peer.acceptPending(within: .seconds(10)))
            defer { close(connection) }
            await transport.shutdown()
            try await group.waitForAll()
        }
        // A task started after the shutdown runs too.
        let value = await Task(executorPreference: executor) { () async -> Int in
            try? await Task.sleep(for: .milliseconds(1))
            return 42
        }.value
        #expect(value == 42)
    }

    @Test("a cancelled task that prefers the driver ends with CancellationError", .timeLimit(.minutes(1)))
    func cancelledOnDriver() async throws {
        let peer = try LoopbackPeer()
        defer { peer.stop() }
        try await withCurlTransport { transport in
            let executor = try #require(transport.taskExecutor)
            let task = Task(executorPreference: executor) { () async -> (any Error)? in
                do {
                    _ = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(peer.port)/never"))
                    return nil
                } catch {
                    return error
                }
            }
            let connection = try #require(try await peer.acceptPending(within: .seconds(10)))
            defer { close(connection) }
            task.cancel()
            let error = await task.value
            #expect(error is CancellationError)
        }
    }

    /// What the busy tasks and the requesting task share.
    final class Shared: Sendable {
        let done = Atomic<Bool>(false)
    }

    @Test(
        "a response is read after a few queued jobs, not after every task on the thread has run: libcurl times an exchange in a few ms beside 50 busy tasks",
        .timeLimit(.minutes(1)))
    func jobsLeaveRoomForTransfers() async throws {
        let peer = try LoopbackPeer { _ in LoopbackPeer.response(body: Array("{}".utf8)) }
        defer { peer.stop() }
        try await withCurlTransport { transport in
            let executor = try #require(transport.taskExecutor)
            let shared = Shared()
            let clock = ContinuousClock()
            let timesMs = try await withThrowingTaskGroup(of: [Int].self) { group in
                // 50 tasks, each taking 1 ms of the thread whenever it runs, until the requests are done.
                for _ in 0..<50 {
                    group.addTask(executorPreference: executor) {
                        while !shared.done.load(ordering: .relaxed) {
                            let until = clock.now.advanced(by: .milliseconds(1))
                            while clock.now < until {}
                            await Task.yield()
                        }
                        return []
                    }
                }
                group.addTask(executorPreference: executor) {
                    // libcurl's own time for each exchange, as the runner reports it (http_req_duration), in ms.
                    var times: [Int] = []
                    for _ in 0..<10 {
                        let response = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(peer.port)/"))
                        #expect(response.status == 200)
                        times.append(Int(((response.timing?.total ?? .seconds(1)) / .milliseconds(1)).rounded()))
                    }
                    shared.done.store(true, ordering: .relaxed)
                    return times
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let median = timesMs.sorted()[timesMs.count / 2]
            // Each round of the driver runs one 1 ms job (past its budget), then serves libcurl: an exchange takes a few
            // rounds. Running every queued task first would take 50 ms a round.
            #expect(median < 25, "libcurl's time for each exchange, ms: \(timesMs)")
        }
    }
}
