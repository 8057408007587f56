import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport

/// Runs `body` with a ``FeatureService`` over libcurl against a fresh local service of `dataset`.
func withLocalService<T: Sendable>(
    dataset: String, _ body: @Sendable (FeatureService, TestServer, CurlTransport) async throws -> T
) async throws -> T {
    try await withTestServer(dataset: dataset) { server in
        try await withCurlTransport { transport in
            try await body(FeatureService(url: server.serviceURL, transport: transport), server, transport)
        }
    }
}

/// Replaces the local service's fault settings (`POST /arcgis/admin/faults`).
func setFaults(_ json: String, server: TestServer, transport: CurlTransport) async throws {
    let url = "http://127.0.0.1:\(server.port)/arcgis/admin/faults"
    let response = try await transport.send(
        HTTPRequest(method: .post, url: url, headers: [HTTPHeader("Content-Type", "application/json")], body: Array(json.utf8)))
    guard response.status == 200, String(decoding: response.body, as: UTF8.self).contains("\"success\":true") else {
        throw FaultSettingsRejected(body: String(decoding: response.body, as: UTF8.self))
    }
}

struct FaultSettingsRejected: Error {
    var body: String
}

extension Feature {
    /// The attribute `name` as a string.
    func string(_ name: String) -> String? { self[attribute: name]?.stringValue }
}
