import Testing

@testable import FeatureServiceClient

/// How the driver reads a response's header block into fields, and how it shares the strings of fields it saw lately.
@Suite struct ResponseHeaderParsingTests {
    /// The fields of `bytes` read with an empty cache: no string shared with an earlier response.
    func fresh(_ bytes: [UInt8]) -> [HTTPHeader] {
        var cache = RecentHeaders()
        return CurlMulti.parseHeaders(bytes, reusing: &cache)
    }

    func block(_ lines: [String]) -> [UInt8] {
        Array((lines.map { $0 + "\r\n" }.joined() + "\r\n").utf8)
    }

    @Test("fields of the last response, values trimmed; 1xx responses before it are skipped")
    func fields() {
        let bytes = block([
            "HTTP/1.1 100 Continue", "", "HTTP/1.1 200 OK", "Content-Type:  application/json; charset=utf-8 ",
            "Content-Length: 137", "Server-Timing: app;dur=0.763", "X-Empty:",
        ])
        #expect(
            fresh(bytes) == [
                HTTPHeader("Content-Type", "application/json; charset=utf-8"), HTTPHeader("Content-Length", "137"),
                HTTPHeader("Server-Timing", "app;dur=0.763"), HTTPHeader("X-Empty", ""),
            ])
    }

    @Test("a field seen lately shares its strings; a changed one is read anew, never the stale value")
    func reuse() {
        var cache = RecentHeaders()
        let first = block(["HTTP/1.1 200 OK", "Content-Type: application/json; charset=utf-8", "Date: Thu, 26 Nov 2026 13:53:54 GMT"])
        let second = block(["HTTP/1.1 200 OK", "Content-Type: application/json; charset=utf-8", "Date: Thu, 26 Nov 2026 13:53:55 GMT"])
        let one = CurlMulti.parseHeaders(first, reusing: &cache)
        let again = CurlMulti.parseHeaders(first, reusing: &cache)
        let two = CurlMulti.parseHeaders(second, reusing: &cache)
        #expect(one == fresh(first) && again == one)
        #expect(two == fresh(second))
        #expect(two[1].value == "Thu, 26 Nov 2026 13:53:55 GMT")
        // Shared, not decoded again: the same string storage.
        #expect(
            one[0].value.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
                == again[0].value.utf8.withContiguousStorageIfAvailable { $0.baseAddress })
        #expect(
            one[0].value.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
                == two[0].value.utf8.withContiguousStorageIfAvailable { $0.baseAddress })
    }

    @Test("more long fields than the cache holds are all read right, in order, again and again")
    func eviction() {
        var cache = RecentHeaders()
        let lines = ["HTTP/1.1 200 OK"] + (0..<20).map { "X-Long-Field-Number-\($0): a value longer than fifteen bytes \($0)" }
        let bytes = block(lines)
        let expected = fresh(bytes)
        #expect(expected.count == 20 && expected[19] == HTTPHeader("X-Long-Field-Number-19", "a value longer than fifteen bytes 19"))
        for _ in 0..<3 { #expect(CurlMulti.parseHeaders(bytes, reusing: &cache) == expected) }
        let changed = block(["HTTP/1.1 200 OK", "X-Long-Field-Number-3: a value longer than fifteen bytes 33"])
        #expect(CurlMulti.parseHeaders(changed, reusing: &cache) == [HTTPHeader("X-Long-Field-Number-3", "a value longer than fifteen bytes 33")])
    }
}
