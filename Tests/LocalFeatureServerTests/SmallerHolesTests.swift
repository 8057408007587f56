import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

@testable import LocalFeatureServer

/// The smaller holes a hostile probe found, each shown fixed at the lowest level that shows it: unthrottled password
/// guessing, active attachments served inline without nosniff, non-ASCII file names dropped, `resultRecordCount=0`
/// answering every row, quotes in `outStatisticFieldName`, and `having` silently ignored.
@Suite struct SmallerHolesTests {
    @Test("sign-in throttle: five failures at full speed, then lockouts doubling from 1 s to 60 s; a right password resets; memory bounded")
    func throttle() {
        let clock = ManualMilliseconds()
        let throttle = SignInThrottle(now: clock.closure)
        let key = SignInThrottle.key(username: "QA", address: "127.0.0.1")
        #expect(key == SignInThrottle.key(username: "qa", address: "127.0.0.1"), "user names are case-insensitive")
        for _ in 0..<4 {
            throttle.failed(key)
            #expect(throttle.wait(for: key) == 0, "the first wrong passwords are free")
        }
        throttle.failed(key)
        #expect(throttle.wait(for: key) == 1_000, "the fifth starts a lockout")
        throttle.failed(key)
        #expect(throttle.wait(for: key) == 2_000)
        for _ in 0..<20 { throttle.failed(key) }
        #expect(throttle.wait(for: key) == 60_000, "capped")
        #expect(
            throttle.wait(for: SignInThrottle.key(username: "other", address: "127.0.0.1")) == 0, "another user from the same address is not locked")
        #expect(throttle.wait(for: SignInThrottle.key(username: "qa", address: "10.0.0.7")) == 0, "nor the same user from elsewhere")
        throttle.succeeded(key)
        #expect(throttle.wait(for: key) == 0)
        // Memory bounded: past capacity, keys not locked are forgotten (a fifth failure of `nearly` then starts no
        // lockout), while locked ones are kept.
        let nearly = SignInThrottle.key(username: "nearly", address: "127.0.0.1")
        for _ in 0..<4 { throttle.failed(nearly) }
        let locked = SignInThrottle.key(username: "locked", address: "127.0.0.1")
        for _ in 0..<5 { throttle.failed(locked) }
        for index in 0..<(SignInThrottle.capacity + 10) { throttle.failed(SignInThrottle.key(username: "user\(index)", address: "127.0.0.1")) }
        #expect(throttle.wait(for: SignInThrottle.key(username: "user\(SignInThrottle.capacity + 5)", address: "127.0.0.1")) == 0)
        throttle.failed(nearly)
        #expect(throttle.wait(for: nearly) == 0, "four failures were still remembered past the capacity")
        #expect(throttle.wait(for: locked) == 1_000, "a locked key was forgotten")
    }

    @Test(
        "over HTTP, a password-guessing loop is refused with 429 after five tries, even with the right password, until the lockout passes",
        .timeLimit(.minutes(1)))
    func guessing() async throws {
        let clock = ManualMilliseconds()
        try await withConfiguredServer(TokenAuthHTTPTests.configure(clock)) { endpoint in
            try await withCurlTransport { transport in
                var codes: [Int] = []
                for guess in 0..<8 {
                    let answer = try await TokenAuthHTTPTests.generate(transport, endpoint, password: "guess-\(guess)")
                    codes.append(WireJSON.error(in: answer.body)?.code ?? 200)
                }
                #expect(codes == [400, 400, 400, 400, 400, 429, 429, 429], "\(codes)")
                let locked = try await TokenAuthHTTPTests.generate(transport, endpoint)
                #expect(WireJSON.error(in: locked.body)?.code == 429, "the right password waits out the lockout too")
                clock.advance(minutes: 2)
                let open = Wire.object(try await TokenAuthHTTPTests.generate(transport, endpoint))
                #expect(open["token"]?.stringValue != nil, "\(open)")
            }
        }
    }

    @Test("over HTTP, one user's wrong passwords never lock out another user's right one from the same address", .timeLimit(.minutes(1)))
    func lockoutIsPerUserAndAddress() async throws {
        let clock = ManualMilliseconds()
        try await withConfiguredServer({
            $0.auth = .init(users: UserDirectory(["qa": TokenAuthHTTPTests.password, "editor": "Other-Secret!"]), now: clock.closure)
        }) { endpoint in
            try await withCurlTransport { transport in
                for guess in 0..<8 { _ = try await TokenAuthHTTPTests.generate(transport, endpoint, password: "guess-\(guess)") }
                let locked = try await TokenAuthHTTPTests.generate(transport, endpoint)
                #expect(WireJSON.error(in: locked.body)?.code == 429, "the guessed user is locked out: \(Wire.text(locked))")
                let other = Wire.object(try await TokenAuthHTTPTests.generate(transport, endpoint, username: "editor", password: "Other-Secret!"))
                #expect(other["token"]?.stringValue != nil, "another user from the same address signs in: \(other)")
            }
        }
    }

    @Test("attachments: active types download as attachments, passive ones inline, names keep non-ASCII through filename*")
    func disposition() {
        #expect(AttachmentDisposition.header(contentType: "image/jpeg", fileName: "photo.jpg") == #"inline; filename="photo.jpg""#)
        #expect(AttachmentDisposition.header(contentType: "text/html; charset=utf-8", fileName: "x.html") == #"attachment; filename="x.html""#)
        #expect(AttachmentDisposition.header(contentType: "image/svg+xml", fileName: "a.svg").hasPrefix("attachment;"))
        #expect(AttachmentDisposition.header(contentType: "application/x-unknown", fileName: "a.bin").hasPrefix("attachment;"))
        #expect(AttachmentDisposition.header(contentType: "video/mp4", fileName: "v.mp4").hasPrefix("inline;"))
        #expect(
            AttachmentDisposition.header(contentType: "image/jpeg", fileName: "Café \"1\".jpg")
                == #"inline; filename="Caf_ _1_.jpg"; filename*=UTF-8''Caf%C3%A9%20%221%22.jpg"#)
        #expect(AttachmentDisposition.header(contentType: "image/png", fileName: "") == #"inline; filename="attachment""#)
    }

    @Test("over HTTP, an uploaded HTML page downloads with nosniff as an attachment; a photo named in Greek keeps its name", .timeLimit(.minutes(1)))
    func attachmentHeaders() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let layer = server.serviceURL + "/0"
                let page = try await AttachmentHTTPTests.add(
                    transport, layer, objectId: 1, filename: "evil.html", contentType: "text/html", bytes: Array("<script>alert(1)</script>".utf8))
                let pageId = try #require(page["addAttachmentResult"]?["objectId"]?.intValue)
                let html = try await transport.send(HTTPRequest(url: "\(layer)/1/attachments/\(pageId)"))
                #expect(html.header("X-Content-Type-Options") == "nosniff")
                #expect(html.header("Content-Disposition")?.hasPrefix("attachment;") == true, "\(html.header("Content-Disposition") ?? "")")

                let photo = try await AttachmentHTTPTests.add(
                    transport, layer, objectId: 1, filename: "φωτογραφία.jpg", contentType: "image/jpeg", bytes: [0xFF, 0xD8, 0xFF])
                let photoId = try #require(photo["addAttachmentResult"]?["objectId"]?.intValue)
                let jpeg = try await transport.send(HTTPRequest(url: "\(layer)/1/attachments/\(photoId)"))
                let disposition = try #require(jpeg.header("Content-Disposition"))
                #expect(
                    disposition.hasPrefix("inline;") && disposition.contains("filename*=UTF-8''" + FormEncoding.escape("φωτογραφία.jpg")),
                    "\(disposition)")
            }
        }
    }

    @Test(
        "resultRecordCount=0, a quoted outStatisticFieldName and a having clause are 400s, not every row, a broken field list or an ignored filter",
        .timeLimit(.minutes(1)))
    func queryParameters() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let query = server.serviceURL + "/0/query"
                func code(_ fields: [(String, String)]) async throws -> Int? {
                    WireJSON.error(in: try await QueryHTTPTests.get(transport, query, fields + [("f", "json")]).0.body)?.code
                }
                #expect(try await code([("where", "1=1"), ("resultRecordCount", "0")]) == 400)
                let count = try await code([("where", "1=1"), ("resultRecordCount", "0"), ("returnCountOnly", "true")])
                #expect(count == nil, "the count ignores paging")
                #expect(try await code([("where", "1=1"), ("resultRecordCount", "1")]) == nil)
                let quoted = #"[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"n\" , \"x"}]"#
                #expect(try await code([("outStatistics", quoted)]) == 400)
                let plain = #"[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"park_count"}]"#
                #expect(try await code([("outStatistics", plain), ("groupByFieldsForStatistics", "state")]) == nil)
                #expect(
                    try await code([("outStatistics", plain), ("groupByFieldsForStatistics", "state"), ("having", "COUNT(OBJECTID) > 1")]) == 400)
                let empty = try await code([("outStatistics", plain), ("having", "")])
                #expect(empty == nil, "an empty having is no clause")
            }
        }
    }
}
