import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Synchronization
import Testing

/// A 50 MB attachment through uploads, timed, with the process's peak memory measured per phase.
///
/// It runs alone (scripts/test's serial phase), since peak memory is process-wide and the server runs in the same
/// process: `swift test --skip-build --filter LargeAttachmentTests`.
@Suite(.serialized) struct LargeAttachmentTests {
    static let size = 50 * 1024 * 1024

    /// Writes `size` seeded random bytes to `path`, one MiB at a time.
    static func generate(_ path: String, size: Int, seed: UInt64) throws {
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var generator = SplitMix64(seed: seed)
        var chunk = [UInt64](repeating: 0, count: (1 << 20) / 8)
        var written = 0
        while written < size {
            for index in chunk.indices { chunk[index] = generator.next() }
            let count = min(1 << 20, size - written)
            try chunk.withUnsafeBytes { try handle.write(contentsOf: Data($0.prefix(count))) }
            written += count
        }
    }

    /// Whether two files hold the same bytes, compared one MiB at a time.
    static func sameBytes(_ first: String, _ second: String) throws -> Bool {
        let a = try FileHandle(forReadingFrom: URL(fileURLWithPath: first))
        let b = try FileHandle(forReadingFrom: URL(fileURLWithPath: second))
        defer {
            try? a.close()
            try? b.close()
        }
        for _ in 0..<100_000 {
            let left = try a.read(upToCount: 1 << 20) ?? Data()
            let right = try b.read(upToCount: 1 << 20) ?? Data()
            guard left == right else { return false }
            if left.isEmpty { return true }
        }
        return false
    }

    /// A field of `/proc/self/status` in KiB (`VmHWM`, `VmRSS`).
    static func status(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    /// Resets `VmHWM` to the current RSS (Linux `clear_refs` 5); false where not allowed.
    static func resetPeak() -> Bool {
        (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    @Test("a 50 MB file goes through uploads in parts and downloads byte-identical, without being held in memory", .timeLimit(.minutes(3)))
    func fiftyMegabytes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("large-attachment-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("survey.tif").path
        let target = directory.appendingPathComponent("download.tif").path
        try Self.generate(source, size: Self.size, seed: 50)
        // A debug build parses each 5 MiB part byte by byte, four at once on two cores: on a loaded machine one part
        // can take longer than the default 60 s request timeout, which would measure the build, not the streaming.
        // The response limit (8 MiB) is far below the file: a download that held the body would fail, not pass.
        let configuration = CurlTransportConfiguration(requestTimeout: .seconds(170), maximumResponseSize: 8 << 20)
        try await withTestServer { server in
            try await withCurlTransport(configuration: configuration) { transport in
                let recorder = PathRecorder(transport)
                let layer = FeatureLayerClient(url: server.serviceURL + "/0", transport: recorder)
                let clock = ContinuousClock()
                let canReset = Self.resetPeak()
                let before = Self.status(canReset ? "VmRSS" : "VmHWM")
                let start = clock.now
                let added = try await layer.addAttachment(objectId: 1, file: source, keywords: "large")
                let uploadTime = clock.now - start
                let uploadPeak = Self.status("VmHWM") - before
                let id = try #require(added.objectId)
                #expect(added.success)
                // In parts: 10 uploadPart requests of 5 MiB, one commit, then addAttachment naming the upload.
                let paths = recorder.paths
                #expect(paths.filter { $0.hasSuffix("/uploadPart") }.count == 10, "\(paths)")
                #expect(paths.filter { $0.hasSuffix("/commit") }.count == 1, "\(paths)")
                #expect(paths.filter { $0.hasSuffix("/addAttachment") }.count == 1, "\(paths)")

                _ = Self.resetPeak()
                let beforeDownload = Self.status("VmRSS")
                let downloadStart = clock.now
                #expect(try await layer.downloadAttachment(objectId: 1, attachmentId: id, to: target) == Int64(Self.size))
                let downloadTime = clock.now - downloadStart
                let downloadPeak = Self.status("VmHWM") - beforeDownload

                #expect(try Self.sameBytes(source, target))
                let info = try #require(try await layer.attachments(objectId: 1).first { $0.id == id })
                #expect(info.size == Int64(Self.size) && info.name == "survey.tif" && info.contentType == "image/tiff")
                print(
                    "LargeAttachmentTests: 50 MiB upload (10 parts of 5 MiB, 4 in parallel, commit, addAttachment) \(uploadTime), "
                        + "peak RSS growth \(uploadPeak / 1024) MiB; download \(downloadTime), peak RSS growth \(downloadPeak / 1024) MiB "
                        + "(peak reset per phase: \(canReset); server in the same process)")
                // The file is 50 MiB and both directions stream, so the process must not grow by anything near that.
                // Peak RSS is process-wide (the in-process server's buffers count too, and this suite runs in the
                // serial phase of scripts/test, alone): the bound is half the file, which a held copy would pass.
                if canReset {
                    #expect(uploadPeak < 25 * 1024, "peak RSS grew by \(uploadPeak) KiB during the upload")
                    #expect(downloadPeak < 25 * 1024, "peak RSS grew by \(downloadPeak) KiB during the download")
                } else {
                    Issue.record("the peak RSS could not be reset (/proc/self/clear_refs), so memory was not checked")
                }
            }
        }
    }

    /// Forwards to a transport and records each request's path.
    final class PathRecorder: HTTPTransport {
        let base: any HTTPTransport
        private let recorded = Mutex<[String]>([])

        init(_ base: any HTTPTransport) { self.base = base }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            recorded.withLock { $0.append(String(request.url.prefix { $0 != "?" })) }
            return try await base.send(request)
        }

        var paths: [String] { recorded.withLock { $0 } }
    }
}
