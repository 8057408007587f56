import FeatureModel
import FeatureServiceClient
import Foundation
import LocalFeatureServer
import Logging
import Testing

/// A server hosting several datasets on 127.0.0.1 port 0, and a curl client that reads its JSON answers.
struct DatasetClient: Sendable {
    let transport: CurlTransport
    let endpoint: LocalFeatureServerEndpoint

    /// `…/rest/services/<service>/FeatureServer` + `path`.
    func url(_ service: String, _ path: String = "") -> String { endpoint.serviceURL(service) + path }

    /// The JSON answer to a GET of `url` with `query` (form-encoded) and `f=json`.
    func get(_ url: String, _ query: [(String, String)] = []) async throws -> JSONValue {
        let fields = (query + [("f", "json")]).map { FormField($0.0, $0.1) }
        return try await answer(HTTPRequest(url: url + "?" + FormEncoding.encode(fields)))
    }

    /// The JSON answer to a urlencoded POST of `fields` (plus `f=json`) to `url`.
    func post(_ url: String, _ fields: [(String, String)]) async throws -> JSONValue {
        try await answer(HTTPRequest.form(url: url, fields: (fields + [("f", "json")]).map { FormField($0.0, $0.1) }))
    }

    private func answer(_ request: HTTPRequest) async throws -> JSONValue {
        let response = try await transport.send(request)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json; charset=utf-8")
        return try JSONReader.parse(String(decoding: response.body, as: UTF8.self))
    }

    /// The `count` of a `returnCountOnly` query on layer `layer`.
    func count(_ service: String, _ layer: Int, where clause: String = "1=1") async throws -> Int64? {
        try await get(url(service, "/\(layer)/query"), [("where", clause), ("returnCountOnly", "true")])["count"]?.intValue
    }

    /// All rows of layer `layer` matching `clause`, all fields, by object ID.
    func rows(_ service: String, _ layer: Int, where clause: String = "1=1") async throws -> [[String: JSONValue]] {
        let answer = try await get(url(service, "/\(layer)/query"), [("where", clause), ("outFields", "*"), ("orderByFields", "OBJECTID")])
        return answer["features"]?.arrayValue?.compactMap { $0["attributes"]?.objectValue } ?? []
    }
}

/// Runs `body` against a real server hosting `datasets` (names or paths) with temporary databases.
func withDatasetServer<T: Sendable>(
    _ datasets: [String], generatedRows: Int? = nil, configure: (inout LocalFeatureServerConfiguration) -> Void = { _ in },
    _ body: @Sendable (DatasetClient) async throws -> T
) async throws -> T {
    var logger = Logger(label: "featureload.test-datasets")
    logger.logLevel = .warning
    var configuration = LocalFeatureServerConfiguration()
    configuration.datasets = datasets
    configuration.generatedRows = generatedRows
    configure(&configuration)
    return try await withLocalFeatureServer(configuration, logger: logger) { endpoint in
        try await withCurlTransport { transport in try await body(DatasetClient(transport: transport, endpoint: endpoint)) }
    }
}

/// The names of the shipped datasets.
let shippedDatasets = ["parks", "birdnests", "servicerequests", "ownerscars", "supplierproducts", "customerorders", "parkboundaries"]

extension JSONValue {
    subscript(_ key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    subscript(_ index: Int) -> JSONValue? {
        if case .array(let items) = self, items.indices.contains(index) { return items[index] }
        return nil
    }

    var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
