import FeatureServiceClient
import Testing

@Suite struct RetryClassificationTests {
    static let table: [(AttemptFailure, RetryClassification, Bool)] = [
        (.transport(.couldNotConnect, mayHaveBeenSent: false), .retryable(.connectionFailure), false),
        (.transport(.couldNotResolveHost, mayHaveBeenSent: false), .retryable(.connectionFailure), false),
        (.transport(.receiveFailed, mayHaveBeenSent: true), .retryable(.connectionDropped), true),
        (.transport(.sendFailed, mayHaveBeenSent: true), .retryable(.connectionDropped), true),
        (.transport(.emptyReply, mayHaveBeenSent: true), .retryable(.connectionDropped), true),
        (.transport(.timedOut, mayHaveBeenSent: true), .retryable(.timeout), true),
        (.transport(.timedOut, mayHaveBeenSent: false), .retryable(.timeout), false),
        (.transport(.invalidRequest, mayHaveBeenSent: false), .permanent, false),
        (.transport(.shutdown, mayHaveBeenSent: false), .permanent, false),
        (.transport(.other, mayHaveBeenSent: true), .permanent, true),
        (.httpStatus(408), .retryable(.timeout), false),
        (.httpStatus(429), .retryable(.throttled), false),
        (.httpStatus(502), .retryable(.unavailable), true),
        (.httpStatus(503), .retryable(.unavailable), false),
        (.httpStatus(504), .retryable(.unavailable), true),
        (.httpStatus(400), .permanent, false),
        (.httpStatus(404), .permanent, false),
        (.httpStatus(498), .permanent, false),
        (.httpStatus(500), .permanent, true),
        (.arcgis(code: 429, httpStatus: 200), .retryable(.throttled), false),
        (.arcgis(code: 503, httpStatus: 200), .retryable(.unavailable), false),
        (.arcgis(code: 502, httpStatus: 200), .retryable(.unavailable), false),
        (.arcgis(code: 504, httpStatus: 200), .retryable(.unavailable), false),
        (.arcgis(code: 400, httpStatus: 200), .permanent, false),
        (.arcgis(code: 500, httpStatus: 200), .permanent, false),
        (.arcgis(code: 498, httpStatus: 498), .permanent, false),
        (.arcgis(code: 500, httpStatus: 503), .retryable(.unavailable), false),
        (.undecodable(httpStatus: 200), .permanent, false),
        (.invalidRequest, .permanent, false),
    ]

    @Test("the classification table", arguments: table)
    func classify(failure: AttemptFailure, expected: RetryClassification, mayHaveBeenApplied: Bool) {
        #expect(RetryClassification.classify(failure) == expected)
        #expect(failure.mayHaveBeenApplied == mayHaveBeenApplied)
    }
}
