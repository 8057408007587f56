import FeatureModel
import FeatureServiceClient
import Testing

@Suite struct TransportErrorTests {
    @Test("the URL loses its query string and user info")
    func redaction() {
        let error = TransportError(.timedOut, url: "http://user:pw@host:8080/a/FeatureServer/0/query?token=abc#x")
        #expect(error.url == "http://host:8080/a/FeatureServer/0/query")
        #expect(!error.description.contains("abc"))
        #expect(!error.description.contains("pw"))
        #expect(HTTPRequest(url: "http://h/p?token=1").redactedURL == "http://h/p")
    }

    @Test(
        "classification follows the kind",
        arguments: [
            (TransportError.Kind.couldNotConnect, true, false, false),
            (.couldNotResolveHost, true, false, false),
            (.timedOut, false, true, true),
            (.sendFailed, false, false, true),
            (.receiveFailed, false, false, true),
            (.emptyReply, false, false, true),
            (.invalidRequest, false, false, false),
        ])
    func classification(kind: TransportError.Kind, connection: Bool, timeout: Bool, maySend: Bool) {
        let error = TransportError(kind, url: "http://127.0.0.1:1/x")
        #expect(error.isConnectionFailure == connection)
        #expect(error.isTimeout == timeout)
        #expect(error.mayHaveBeenSent == maySend)
    }

    @Test("the description names the failure, the URL, curl's code and what to check")
    func description() {
        let error = TransportError(.couldNotConnect, url: "http://127.0.0.1:9/x", curlCode: 7, message: "Connection refused")
        #expect(
            error.description
                == "could not connect: http://127.0.0.1:9/x (curl 7: Connection refused). Check that the service is running and that the URL's host and port are right."
        )
    }

    @Test("response headers are found case-insensitively")
    func headerLookup() {
        let response = HTTPResponse(
            status: 200, headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("X-A", "1"), HTTPHeader("x-a", "2")])
        #expect(response.header("content-type") == "application/json")
        #expect(response.header("X-A") == "1")
        #expect(response.header("missing") == nil)
    }

    @Test("form requests are urlencoded POSTs")
    func formRequest() {
        let request = HTTPRequest.form(url: "http://h/q", fields: [.init("where", "a = 'b c'"), .init("f", "json")], timeout: .seconds(2))
        #expect(request.method == .post)
        #expect(String(decoding: request.body.bytes ?? [], as: UTF8.self) == "where=a%20%3D%20%27b%20c%27&f=json")
        #expect(request.timeout == .seconds(2))
    }
}
