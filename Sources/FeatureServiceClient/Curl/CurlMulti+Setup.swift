internal import CCurl
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Receives body bytes on the driver thread (`CURLOPT_WRITEFUNCTION`); `userdata` is the unretained handle.
private let writeBody: curl_write_callback = { buffer, size, count, userdata in
    let total = size * count
    guard let buffer, let userdata, total > 0 else { return total }
    let handle = Unmanaged<CurlEasyHandle>.fromOpaque(userdata).takeUnretainedValue()
    if handle.fileDescriptor >= 0 {
        if handle.bodyToFile == nil { handle.bodyToFile = !handle.finalResponseIsJSON }
        if handle.bodyToFile == true { return handle.writeToFile(buffer, count: total) ? total : 0 }
    }
    guard handle.body.count + total <= handle.maximumBody else {
        handle.writeFailure = ("the response body passed the limit of \(handle.maximumBody) bytes", true)
        return 0
    }
    if handle.body.isEmpty {
        // Size the buffer once from Content-Length (the wire length; a compressed body grows past it once).
        var length: curl_off_t = -1
        if ccurl_easy_getinfo_off_t(handle.easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK,
            length > 0, length < 64 << 20
        {
            handle.body.reserveCapacity(Int(length))
        }
    }
    handle.body.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: total))
    return total
}

/// Receives raw header lines on the driver thread (`CURLOPT_HEADERFUNCTION`).
private let collectHeader: curl_write_callback = { buffer, size, count, userdata in
    let total = size * count
    guard let buffer, let userdata, total > 0 else { return total }
    let handle = Unmanaged<CurlEasyHandle>.fromOpaque(userdata).takeUnretainedValue()
    handle.headerBytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: total))
    return total
}

/// Hands the next request-body bytes to libcurl on the driver thread (`CURLOPT_READFUNCTION`); `userdata` is the
/// handle. In-memory bytes are copied, file parts read in chunks of libcurl's upload buffer (``BodyReader``); a file
/// that cannot be read aborts the transfer (`CURL_READFUNC_ABORT`) rather than sending a body shorter than its
/// `Content-Length`.
///
/// There is deliberately no `CURLOPT_SEEKFUNCTION` to go with it: see the POST block of `configure(_:for:)`.
private let readBody: curl_read_callback = { buffer, size, count, userdata in
    guard let buffer, let userdata else { return 0 }
    let handle = Unmanaged<CurlEasyHandle>.fromOpaque(userdata).takeUnretainedValue()
    guard let reader = handle.upload else { return 0 }
    do {
        return try reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
    } catch {
        return Int(CURL_READFUNC_ABORT)
    }
}

/// Lets libcurl issue a request once only (`CURLOPT_PREREQFUNCTION`, called each time it is about to send one);
/// `userdata` is the handle. When a reused keep-alive connection dies after the request went out and before any
/// answer, libcurl sends a body it can rewind again on a new connection; a second call aborts that instead, so an
/// edit is never applied twice behind the caller's back (the caller decides, see ExactlyOnceRule).
private let issueOnce: curl_prereq_callback = { userdata, _, _, _, _ in
    guard let userdata else { return ccurl_prereq_abort() }
    let handle = Unmanaged<CurlEasyHandle>.fromOpaque(userdata).takeUnretainedValue()
    handle.requestsIssued += 1
    return handle.requestsIssued == 1 ? ccurl_prereq_ok() : ccurl_prereq_abort()
}

extension CurlEasyHandle {
    /// Whether the last response head received says `Content-Type: application/json` (an ArcGIS answer, kept in
    /// memory even when the body would go to a file).
    var finalResponseIsJSON: Bool {
        let text = String(decoding: headerBytes, as: UTF8.self).lowercased()
        let lastHead = text.components(separatedBy: "\r\n\r\n").last { !$0.isEmpty } ?? text
        return lastHead.split(separator: "\r\n").contains { line in
            line.hasPrefix("content-type:") && line.dropFirst("content-type:".count).trimmingPrefix(" ").hasPrefix("application/json")
        }
    }

    /// Writes body bytes to the response file; false (with ``writeFailure``) when the file refuses them.
    func writeToFile(_ buffer: UnsafeMutablePointer<CChar>, count: Int) -> Bool {
        var written = 0
        while written < count {
            let result = write(fileDescriptor, buffer + written, count - written)
            if result < 0 {
                if errno == EINTR { continue }
                writeFailure = ("cannot write the response file (errno \(errno))", false)
                return false
            }
            written += result
        }
        fileBytes += Int64(count)
        return true
    }
}

extension CurlMulti {
    /// Sets every option `request` needs on `handle`. Driver thread only.
    ///
    /// A handle whose last request was plain (GET, or POST of an in-memory body sent whole, no response file) over the
    /// same scheme keeps the options every such request shares (callbacks, user agent, timeouts, TLS, proxy) and gets
    /// only what differs: URL, timeout, headers, method and body. Anything else resets it first (`curl_easy_reset`)
    /// and sets everything. Resetting and setting everything again cost about 3 µs a request.
    /// - Returns: `CURLE_OK`, or the first failing option's code.
    func configure(_ handle: CurlEasyHandle, for request: HTTPRequest) -> CURLcode {
        let easy = handle.easy
        let secure = Self.isHTTPS(request.url)
        let plain = request.responseFile == nil && (request.method == .get || Self.sendsWhole(request.body))
        handle.errorBuffer[0] = 0
        handle.maximumBody = configuration.maximumResponseSize
        if plain && handle.plainOverHTTPS == secure {
            return configureRequest(handle, for: request)
        }
        curl_easy_reset(easy)
        handle.plainOverHTTPS = nil
        if let path = request.responseFile {
            handle.fileDescriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard handle.fileDescriptor >= 0 else {
                handle.writeFailure = ("cannot create \(path) (errno \(errno))", false)
                return CURLE_WRITE_ERROR
            }
        }
        let context = Unmanaged.passUnretained(handle).toOpaque()
        var code = "http,https".withCString { ccurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, $0) }
        guard code == CURLE_OK else { return code }
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, handle.errorBuffer)
        _ = ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = ccurl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, writeBody)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = ccurl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, collectHeader)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        _ = ccurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMilliseconds)
        if configuration.acceptEncoding {
            _ = ccurl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        }
        code = configuration.userAgent.withCString { ccurl_easy_setopt_string(easy, CURLOPT_USERAGENT, $0) }
        guard code == CURLE_OK else { return code }
        if let failure = configureConnection(easy, url: request.url) { return failure }
        code = configureRequest(handle, for: request)
        // Only a handle set up completely is reused without a reset.
        if plain && code == CURLE_OK { handle.plainOverHTTPS = secure }
        return code
    }

    /// Whether `body` is handed to libcurl whole (`CURLOPT_COPYPOSTFIELDS`) rather than read through a callback.
    static func sendsWhole(_ body: HTTPRequest.Body) -> Bool {
        if case .bytes(let bytes) = body { return bytes.count <= singleSendLimit }
        return false
    }

    /// The options that differ from one request to the next: URL, timeout, headers, method and body. The others were
    /// set when the handle was last reset (``configure(_:for:)``); a plain request needs nothing more.
    private func configureRequest(_ handle: CurlEasyHandle, for request: HTTPRequest) -> CURLcode {
        let easy = handle.easy
        let code = request.url.withCString { ccurl_easy_setopt_string(easy, CURLOPT_URL, $0) }
        guard code == CURLE_OK else { return code }
        let timeout = request.timeout.map(\.curlMilliseconds) ?? defaultTimeoutMilliseconds
        _ = ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, timeout)
        _ = ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList(for: request.headers, handle: handle))
        guard request.method == .post else {
            // Back to GET (after a POST on the same handle), and a GET libcurl may send again on a new connection when
            // a reused one turns out closed.
            _ = ccurl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
            _ = ccurl_easy_setopt_prereq_callback(easy, nil)
            return CURLE_OK
        }
        // When a reused keep-alive connection dies after the request went out but before any answer, libcurl
        // silently resends the request on a new connection — which would apply an edit twice. Two guards keep
        // every POST to one issue, and the caller decides (see ExactlyOnceRule):
        // - `issueOnce` aborts a second issue of the request (CURLE_ABORTED_BY_CALLBACK, read as sent);
        // - a body larger than `singleSendLimit` goes through a read callback with no seek callback, so libcurl
        //   cannot rewind it either (CURLE_SEND_FAIL_REWIND). The same holds for multipart bodies streamed from
        //   files: the reader only moves forward, so an addAttachment or uploadPart is never repeated. The exact
        //   length is known up front (file parts are sized when the body is built), so the request carries a
        //   Content-Length and never chunked encoding.
        // A smaller in-memory body is handed over whole (`CURLOPT_COPYPOSTFIELDS`), and libcurl sends it in the
        // same write as the head: one system call and one segment for a single-edit applyEdits, not two, on the
        // client and on the service.
        let context = Unmanaged.passUnretained(handle).toOpaque()
        _ = ccurl_easy_setopt_long(easy, CURLOPT_POST, 1)
        _ = ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.contentLength))
        _ = ccurl_easy_setopt_prereq_callback(easy, issueOnce)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_PREREQDATA, context)
        if case .bytes(let bytes) = request.body, bytes.count <= Self.singleSendLimit {
            return Self.handOver(bytes, to: easy)
        }
        handle.upload = BodyReader(request.body)
        _ = ccurl_easy_setopt_read_callback(easy, readBody)
        return ccurl_easy_setopt_pointer(easy, CURLOPT_READDATA, context)
    }

    /// Gives libcurl a whole in-memory body (`CURLOPT_COPYPOSTFIELDS`); copied by libcurl, so the bytes need not
    /// outlive the call.
    private static func handOver(_ bytes: [UInt8], to easy: UnsafeMutableRawPointer) -> CURLcode {
        bytes.isEmpty
            ? "".withCString { ccurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0)) }
            : bytes.withUnsafeBytes { ccurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress!)) }
    }

    /// The `curl_slist` for `headers` plus an empty `Expect:` (no 100-continue round trip for bodies over 1 KB).
    ///
    /// Lists for recurring header sets are cached (load tests repeat the same few); others are built for the one
    /// transfer and freed when it ends.
    private func headerList(for headers: [HTTPHeader], handle: CurlEasyHandle) -> UnsafeMutablePointer<curl_slist>? {
        if let cached = headerListCache[headers] { return cached }
        var list: UnsafeMutablePointer<curl_slist>? = nil
        var hasExpect = false
        for header in headers {
            if header.name.utf8.count == 6 && header.name.lowercased() == "expect" { hasExpect = true }
            // "Name:" with nothing after it would delete the header; "Name;" sends it empty.
            let line = header.value.isEmpty ? header.name + ";" : header.name + ": " + header.value
            list = line.withCString { curl_slist_append(list, $0) }
        }
        if !hasExpect { list = curl_slist_append(list, "Expect:") }
        guard let list else { return nil }
        if headerListCache.count < Self.headerListCacheLimit {
            headerListCache[headers] = list
        } else {
            handle.ownedHeaderList = list
        }
        return list
    }
}
