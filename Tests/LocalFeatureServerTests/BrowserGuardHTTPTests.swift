import FeatureModel
import FeatureServiceClient
import Foundation
import LocalFeatureServer
import Testing

@testable import LocalFeatureServer

/// What a web page in the user's browser can make the browser send — simple GETs, `text/plain` POSTs from another
/// origin, requests to a DNS-rebound name — over real HTTP (libcurl against the server on port 0). Each case first
/// changed data or read it; now each is refused and nothing changes.
@Suite struct BrowserGuardHTTPTests {
    static func envelopeCode(_ response: HTTPResponse) -> Int? {
        WireJSON.error(in: response.body)?.code
    }

    @Test("edits and admin changes by GET are refused with 405 and change nothing", .timeLimit(.minutes(1)))
    func getCannotEdit() async throws {
        try await withConfiguredServer({ _ in }) { endpoint in
            try await withCurlTransport { transport in
                let service = endpoint.serviceURL("parks")
                let before = try #require(try await Wire.count(transport, service))
                #expect(before > 0)
                for path in [
                    "/0/deleteFeatures?where=1%3D1&f=json", "/0/applyEdits?deletes=1,2,3&f=json", "/applyEdits?edits=%5B%5D&f=json",
                    "/0/addFeatures?features=\(FormEncoding.escape(Wire.parkAdds()))&f=json",
                ] {
                    let answer = try await transport.send(HTTPRequest(url: service + path))
                    #expect(Self.envelopeCode(answer) == 405, "\(path): \(Wire.text(answer))")
                }
                let admin = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(endpoint.port)/arcgis/admin/stats/reset"))
                #expect(Self.envelopeCode(admin) == 405)
                #expect(try await Wire.count(transport, service) == before)
                // Reads by GET still work, and the admin endpoint still reads.
                #expect(WireJSON.error(in: try await transport.send(HTTPRequest(url: service + "/0?f=json")).body) == nil)
                #expect(
                    WireJSON.error(in: try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(endpoint.port)/arcgis/admin/stats")).body) == nil
                )
            }
        }
    }

    @Test(
        "a text/plain POST from another origin neither deletes nor turns on faults; the server's own origin and allowed ones may edit",
        .timeLimit(.minutes(1)))
    func foreignOrigin() async throws {
        try await withConfiguredServer({ $0.browser.allowedOrigins = ["https://app.example"] }) { endpoint in
            try await withCurlTransport { transport in
                let service = endpoint.serviceURL("parks")
                let before = try #require(try await Wire.count(transport, service))
                let evil = [HTTPHeader("Origin", "http://evil.example"), HTTPHeader("Content-Type", "text/plain")]
                let delete = try await transport.send(
                    HTTPRequest(method: .post, url: service + "/0/deleteFeatures", headers: evil, body: Array("where=1=1&f=json".utf8)))
                #expect(Self.envelopeCode(delete) == 403, "\(Wire.text(delete))")
                let faults = try await transport.send(
                    HTTPRequest(
                        method: .post, url: "http://127.0.0.1:\(endpoint.port)/arcgis/admin/faults", headers: evil,
                        body: Array(#"{"rules":[{"kind":"http500","rate":1}]}"#.utf8)))
                #expect(Self.envelopeCode(faults) == 403, "\(Wire.text(faults))")
                // A null origin (sandboxed frames, file: pages) is foreign too.
                let null = try await transport.send(HTTPRequest(url: service + "/0?f=json", headers: [HTTPHeader("Origin", "null")]))
                #expect(Self.envelopeCode(null) == 403)
                #expect(try await Wire.count(transport, service) == before, "nothing deleted, and no fault answers the count")

                for origin in ["http://127.0.0.1:\(endpoint.port)", "https://app.example"] {
                    let add = try await transport.send(
                        HTTPRequest.form(url: service + "/0/addFeatures", fields: [FormField("features", Wire.parkAdds()), FormField("f", "json")])
                            .adding(HTTPHeader("Origin", origin)))
                    #expect(Self.envelopeCode(add) == nil, "\(origin): \(Wire.text(add))")
                }
                #expect(try await Wire.count(transport, service) == before + 2)
            }
        }
    }

    @Test("on loopback only local Host names are answered (a DNS-rebound name is refused); --allow-host adds names", .timeLimit(.minutes(1)))
    func hostNames() async throws {
        try await withConfiguredServer({ $0.browser.allowedHosts = ["gis.test"] }) { endpoint in
            try await withCurlTransport { transport in
                let url = endpoint.serviceURL("parks") + "/0/query?where=1%3D1&returnCountOnly=true&f=json"
                for (host, allowed) in [
                    ("evil.example", false), ("evil.example:\(endpoint.port)", false), ("127.0.0.1.evil.example", false),
                    ("localhost:\(endpoint.port)", true), ("127.0.0.1:\(endpoint.port)", true), ("[::1]:\(endpoint.port)", true),
                    ("gis.test:\(endpoint.port)", true), ("GIS.test", true),
                ] {
                    let answer = try await transport.send(HTTPRequest(url: url, headers: [HTTPHeader("Host", host)]))
                    let code = Self.envelopeCode(answer)
                    #expect(allowed ? code == nil : code == 403, "Host \(host): \(Wire.text(answer))")
                }
            }
        }
    }

    @Test("which paths change data, and how a Host authority is read")
    func rules() {
        typealias Guard = BrowserGuardMiddleware<FeatureServerRequestContext>
        let base = "/arcgis/rest/services/parks/FeatureServer"
        for path in [
            "\(base)/0/applyEdits", "\(base)/applyEdits", "\(base)/0/DELETEFEATURES", "\(base)/0/addFeatures", "\(base)/0/updateFeatures",
            "\(base)/0/7/addAttachment", "\(base)/0/7/deleteAttachments", "\(base)/uploads/upload", "\(base)/uploads/i1/commit",
            "/arcgis/admin/stats/reset", "/arcgis/admin/Stats/Reset/",
        ] {
            #expect(Guard.changesData(path: path), "\(path)")
        }
        for path in [
            "\(base)/0/query", "\(base)/0", "\(base)/uploads/i1", "\(base)/0/7/attachments", "/arcgis/admin/faults", "/arcgis/admin/stats",
            "/arcgis/rest/info",
        ] {
            #expect(!Guard.changesData(path: path), "\(path)")
        }
        #expect(Guard.hostName(ofAuthority: "LocalHost:8080") == "localhost")
        #expect(Guard.hostName(ofAuthority: "[::1]:80") == "::1")
        #expect(Guard.hostName(ofAuthority: ":80") == nil)
        #expect(
            LocalFeatureServerConfiguration.isLoopback("127.0.0.1") && LocalFeatureServerConfiguration.isLoopback("[::1]")
                && !LocalFeatureServerConfiguration.isLoopback("0.0.0.0"))
        #expect(
            LocalFeatureServerConfiguration.isLoopbackIPv4("127.3.2.1") && !LocalFeatureServerConfiguration.isLoopbackIPv4("127.0.0.1.evil.example")
                && !LocalFeatureServerConfiguration.isLoopbackIPv4("127.0.0.256"))
        #expect(!Guard.changesData(path: "/arcgis/admin/nothing"), "an unknown admin path stays the admin's 404")
    }
}

extension HTTPRequest {
    /// This request with one more header.
    func adding(_ header: HTTPHeader) -> HTTPRequest {
        var copy = self
        copy.headers.append(header)
        return copy
    }
}
