internal import CCurl

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One request on its way through the driver: the request, the continuation to resume, and (while libcurl works
/// on it) the easy handle carrying it.
///
/// Ownership moves with the transfer: the submitting task fills it, the inbox `Mutex` hands it over, then only the
/// driver thread touches it until it resumes the continuation. Whoever removes a transfer from the inbox or from
/// the driver's active set resumes it, exactly once. Hence `@unchecked Sendable`.
final class CurlTransfer: @unchecked Sendable {
    let request: HTTPRequest
    /// Unchecked: `take()` below already makes every resume the only one, and a checked continuation costs an
    /// allocation per request.
    private var continuation: UnsafeContinuation<HTTPResponse, any Error>?
    /// The easy handle working on this transfer; driver thread only.
    var handle: CurlEasyHandle?

    init(request: HTTPRequest) {
        self.request = request
    }

    /// Stores the continuation; called once, by the submitting task, before the transfer is shared.
    func attach(_ continuation: UnsafeContinuation<HTTPResponse, any Error>) {
        self.continuation = continuation
    }

    func resume(returning response: HTTPResponse) {
        continuation.take()?.resume(returning: response)
    }

    func resume(throwing error: any Error) {
        continuation.take()?.resume(throwing: error)
    }
}

/// A pooled libcurl easy handle with its reusable buffers. Driver thread only.
final class CurlEasyHandle {
    /// The `CURL *`.
    let easy: UnsafeMutableRawPointer
    /// `CURLOPT_ERRORBUFFER` storage, `CURL_ERROR_SIZE` bytes.
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// The decoded response body of the current transfer.
    var body: [UInt8] = []
    /// The raw response header lines of the current transfer (all responses, 1xx included).
    var headerBytes: [UInt8] = []
    /// The transfer in progress.
    var transfer: CurlTransfer?
    /// Reads the request body being uploaded for libcurl (`CURLOPT_READFUNCTION`), files in chunks; nil when idle.
    var upload: BodyReader?
    /// A header list built for this transfer alone, freed when it ends (cached lists are not owned).
    var ownedHeaderList: UnsafeMutablePointer<curl_slist>?
    /// The most body bytes held in ``body`` (``CurlTransportConfiguration/maximumResponseSize``).
    var maximumBody = Int.max
    /// The open ``HTTPRequest/responseFile`` of the current transfer, or -1.
    var fileDescriptor: Int32 = -1
    /// Whether the current body goes to ``fileDescriptor`` (decided at its first bytes: not for a JSON answer).
    var bodyToFile: Bool?
    /// Bytes written to the file.
    var fileBytes: Int64 = 0
    /// Why the write callback stopped the transfer, if it did, and whether for the size limit.
    var writeFailure: (message: String, tooLarge: Bool)?
    /// How many times libcurl was about to issue the current request (`CURLOPT_PREREQFUNCTION`): more than once means
    /// it tried to send it again on a new connection, which the callback refused.
    var requestsIssued = 0
    /// Whether the handle is set up for plain requests (``CurlMulti/configure(_:for:)``), over HTTPS or not; nil when
    /// the next request must reset it.
    var plainOverHTTPS: Bool?

    init?() {
        guard let easy = curl_easy_init() else { return nil }
        self.easy = easy
        let size = Int(ccurl_error_size())
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
        headerBytes.reserveCapacity(512)
    }

    /// Clears per-transfer state so the handle can go back to the pool.
    func recycle() {
        transfer = nil
        body = []
        upload = nil
        if fileDescriptor >= 0 { close(fileDescriptor) }
        fileDescriptor = -1
        bodyToFile = nil
        fileBytes = 0
        writeFailure = nil
        requestsIssued = 0
        headerBytes.removeAll(keepingCapacity: true)
        if let list = ownedHeaderList {
            // The handle keeps its options between transfers: it must not point at a freed list.
            _ = ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, nil)
            curl_slist_free_all(list)
            ownedHeaderList = nil
        }
    }

    /// Releases the libcurl handle; the object must not be used afterwards.
    func destroy() {
        recycle()
        curl_easy_cleanup(easy)
        errorBuffer.deallocate()
    }

    /// Why the transfer failed, if known: the request body's read failure (libcurl then only reports that the read
    /// callback aborted), else the message libcurl left in the error buffer.
    var errorMessage: String? {
        if let failure = upload?.failure { return failure.description }
        if let writeFailure { return writeFailure.message }
        return errorBuffer[0] == 0 ? nil : String(cString: errorBuffer)
    }
}
