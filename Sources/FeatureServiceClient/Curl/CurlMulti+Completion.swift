internal import CCurl
import Synchronization

extension CurlMulti {
    /// Finishes a transfer libcurl reported done: reads status and timing, pools the handle, resumes the task.
    /// Driver thread only.
    func complete(_ handle: CurlEasyHandle, result: CURLcode) {
        let easy = handle.easy
        let timing = readTiming(easy)
        if timing.newConnections > 0 { connectionsOpened.add(timing.newConnections, ordering: .relaxed) }
        transfersCompleted.add(1, ordering: .relaxed)
        curl_multi_remove_handle(multi, easy)
        guard let transfer = handle.transfer else {
            pool(handle)
            return
        }
        transfer.handle = nil
        guard result == CURLE_OK else {
            var error = TransportError(
                curlCode: result, message: handle.errorMessage, url: transfer.request.url, requestBytes: timing.bytesSent)
            if result == CURLE_ABORTED_BY_CALLBACK && handle.requestsIssued > 1 {
                // libcurl was about to issue the request again on a new connection after the first failed without an
                // answer (a reused connection that closed, an HTTP/2 stream refused): the first may have reached the
                // service, so it counts as sent.
                error = TransportError(
                    .receiveFailed, url: transfer.request.url, curlCode: Int(result.rawValue),
                    message: "its connection failed without an answer and it was not sent again; the first attempt may have reached the service",
                    mayHaveBeenSent: true)
            }
            if let failure = handle.writeFailure {
                error = TransportError(
                    failure.tooLarge ? .responseTooLarge : .writeFailed, url: transfer.request.url, curlCode: Int(result.rawValue),
                    message: failure.message, mayHaveBeenSent: true)
            }
            pool(handle)
            transfer.resume(throwing: error)
            return
        }
        var status = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        let version = Self.negotiatedHTTPVersion(easy)
        let headers = Self.parseHeaders(handle.headerBytes, reusing: &recentHeaders)
        var body: [UInt8] = []
        swap(&body, &handle.body)
        var response = HTTPResponse(status: status, headers: headers, body: body, timing: timing, httpVersion: version)
        if handle.fileDescriptor >= 0 && handle.bodyToFile != false { response.fileBytes = handle.fileBytes }
        pool(handle)
        transfer.resume(returning: response)
    }

    private func readTiming(_ easy: UnsafeMutableRawPointer) -> TransferTiming {
        func microseconds(_ info: CURLINFO) -> Duration {
            var value: curl_off_t = 0
            _ = ccurl_easy_getinfo_off_t(easy, info, &value)
            return .microseconds(Int64(value))
        }
        func offset(_ info: CURLINFO) -> Int64 {
            var value: curl_off_t = 0
            _ = ccurl_easy_getinfo_off_t(easy, info, &value)
            return Int64(value)
        }
        func long(_ info: CURLINFO) -> Int {
            var value = 0
            _ = ccurl_easy_getinfo_long(easy, info, &value)
            return value
        }
        // REQUEST_SIZE counts what went out in the first buffer: the head, plus the body when libcurl sent it
        // along (7.88: POSTFIELDS under 64 KiB). The upload size counts the body. A body no larger than
        // REQUEST_SIZE was included (a head is never 64 KiB); a larger one was sent after the head.
        let requestSize = Int64(long(CURLINFO_REQUEST_SIZE))
        let uploaded = offset(CURLINFO_SIZE_UPLOAD_T)
        return TransferTiming(
            nameLookup: microseconds(CURLINFO_NAMELOOKUP_TIME_T),
            connect: microseconds(CURLINFO_CONNECT_TIME_T),
            appConnect: microseconds(CURLINFO_APPCONNECT_TIME_T),
            startTransfer: microseconds(CURLINFO_STARTTRANSFER_TIME_T),
            total: microseconds(CURLINFO_TOTAL_TIME_T),
            bytesSent: uploaded <= requestSize ? requestSize : requestSize + uploaded,
            bytesReceived: Int64(long(CURLINFO_HEADER_SIZE)) + offset(CURLINFO_SIZE_DOWNLOAD_T),
            newConnections: long(CURLINFO_NUM_CONNECTS))
    }

    /// The header fields of the last response in `bytes` (earlier 1xx responses are skipped), taking the strings of a
    /// field seen lately from `cache`.
    static func parseHeaders(_ bytes: [UInt8], reusing cache: inout RecentHeaders) -> [HTTPHeader] {
        var headers: [HTTPHeader] = []
        headers.reserveCapacity(8)
        bytes.withUnsafeBufferPointer { bytes in
            var lineStart = 0
            let colon = UInt8(ascii: ":")
            let cr = UInt8(ascii: "\r")
            let lf = UInt8(ascii: "\n")
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count && bytes[lineEnd] != lf { lineEnd += 1 }
                var contentEnd = lineEnd
                if contentEnd > lineStart && bytes[contentEnd - 1] == cr { contentEnd -= 1 }
                let line = bytes[lineStart..<contentEnd]
                if line.starts(with: "HTTP/".utf8) {
                    headers.removeAll(keepingCapacity: true)  // a new response (after 1xx or a redirect) starts
                } else if let separator = line.firstIndex(of: colon) {
                    var valueStart = separator + 1
                    while valueStart < contentEnd && (bytes[valueStart] == 0x20 || bytes[valueStart] == 0x09) { valueStart += 1 }
                    var valueEnd = contentEnd
                    while valueEnd > valueStart && (bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09) { valueEnd -= 1 }
                    headers.append(cache.header(name: bytes[lineStart..<separator], value: bytes[valueStart..<valueEnd]))
                }
                lineStart = lineEnd + 1
            }
        }
        return headers
    }
}

/// The header fields of recent responses whose strings cost an allocation each (past 15 bytes, such as
/// `Content-Type: application/json; charset=utf-8` or this second's `Date`). A service sends the same ones on every
/// response, so a field equal to one seen lately shares its strings rather than decoding and allocating them again.
/// Driver thread only.
struct RecentHeaders {
    /// Strings of up to 15 UTF-8 bytes are held inline, and cost nothing to make.
    private static let inlineLimit = 15
    private static let capacity = 8
    private var fields: [HTTPHeader] = []
    private var next = 0

    /// The field `name: value`, from the cache when it holds it.
    mutating func header(name: Slice<UnsafeBufferPointer<UInt8>>, value: Slice<UnsafeBufferPointer<UInt8>>) -> HTTPHeader {
        guard name.count > Self.inlineLimit || value.count > Self.inlineLimit else {
            return HTTPHeader(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        }
        for field in fields where Self.equal(field.name, name) && Self.equal(field.value, value) { return field }
        let field = HTTPHeader(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        if fields.count < Self.capacity {
            fields.append(field)
        } else {
            fields[next] = field
            next = (next + 1) % Self.capacity
        }
        return field
    }

    private static func equal(_ string: String, _ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard string.utf8.count == bytes.count else { return false }
        return string.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(bytes) } ?? string.utf8.elementsEqual(bytes)
    }
}

extension TransportError {
    /// The error for a libcurl failure.
    /// - Parameters:
    ///   - curlCode: What libcurl returned.
    ///   - message: The easy handle's error buffer, if set.
    ///   - url: The request URL (redacted here).
    ///   - requestBytes: Request bytes libcurl sent before failing; decides ``mayHaveBeenSent`` for timeouts.
    init(curlCode: CURLcode, message: String?, url: String, requestBytes: Int64) {
        let kind: Kind
        let sent: Bool
        switch curlCode {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            (kind, sent) = (.couldNotResolveHost, false)
        case CURLE_COULDNT_CONNECT:
            (kind, sent) = (.couldNotConnect, false)
        case CURLE_OPERATION_TIMEDOUT:
            (kind, sent) = (.timedOut, requestBytes > 0)
        case CURLE_SEND_ERROR:
            (kind, sent) = (.sendFailed, true)
        case CURLE_RECV_ERROR, CURLE_PARTIAL_FILE:
            (kind, sent) = (.receiveFailed, true)
        case CURLE_GOT_NOTHING:
            (kind, sent) = (.emptyReply, true)
        case CURLE_SEND_FAIL_REWIND:
            // A reused connection died after the request was sent; libcurl wanted to resend it and could not.
            (kind, sent) = (.receiveFailed, true)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_FUNCTION_ARGUMENT:
            (kind, sent) = (.invalidRequest, false)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE:
            (kind, sent) = (.tlsFailed, false)
        default:
            (kind, sent) = (.other, requestBytes > 0)
        }
        let text = message ?? curl_easy_strerror(curlCode).map { String(cString: $0) }
        self.init(kind, url: url, curlCode: Int(curlCode.rawValue), message: text, mayHaveBeenSent: sent)
    }
}
