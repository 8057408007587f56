import FeatureModel
import Foundation
import Logging
import NIOCore

/// An HTTP request reduced to what the feature service reads.
struct ServerRequest: Sendable {
    var method: String
    /// The path without the query string, still percent-encoded.
    var path: String
    /// The raw (percent-encoded) query string, without `?`.
    var query: String?
    var contentType: String?
    var body: ByteBuffer
    /// The multipart form, when the HTTP shell parsed the body while it streamed in (``body`` is then empty).
    var form: MultipartForm? = nil

    init(
        method: String = "GET", path: String, query: String? = nil, contentType: String? = nil, body: ByteBuffer = ByteBuffer(),
        form: MultipartForm? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.contentType = contentType
        self.body = body
        self.form = form
    }
}

/// A JSON answer: HTTP status and body. The content type is always `application/json; charset=utf-8`.
struct ServerResponse: Sendable {
    var status: Int
    var body: ByteBuffer
    /// An attachment's bytes to stream instead of `body`, with its own content type.
    var download: AttachmentDownload? = nil
    /// The `Content-Type` of `body`.
    var contentType: String = FeatureServerResponder.contentType
}

/// Answers feature-service requests: parameters → route → store → JSON. Independent of Hummingbird, so it is
/// tested without a socket; ``FeatureServerApplication`` is the thin HTTP shell around it.
///
/// Every failure is answered with the ArcGIS envelope and HTTP 200 (ArcGIS style): 400 for bad parameters,
/// 404 for unknown services, layers and operations, 500 for unexpected failures. It never throws.
struct FeatureServerResponder: Sendable {
    /// The content type of every answer.
    static let contentType = "application/json; charset=utf-8"

    let stores: [String: FeatureStore]
    let services: [ServiceDefinition]
    /// The server's record limits; a dataset may lower `maxRecordCount` for its service (``recordLimits(for:)``).
    let recordLimits: RecordLimits
    let logger: Logger
    /// The largest upload or attachment, in bytes (``LocalFeatureServerConfiguration/Limits/maximumAttachmentSize``).
    var maximumAttachmentSize = LocalFeatureServerConfiguration.Limits().maximumAttachmentSize

    /// A responder for the services held by `stores`.
    init(stores: [FeatureStore], limits: RecordLimits, logger: Logger) {
        var byName: [String: FeatureStore] = [:]
        for store in stores { byName[store.definition.name.lowercased()] = store }
        self.stores = byName
        self.services = stores.map(\.definition)
        self.recordLimits = limits
        self.logger = logger
    }

    /// The answer to `request`.
    func respond(to request: ServerRequest) async -> ServerResponse {
        var parameters = RequestParameters()
        do {
            parameters = RequestParameters(try FormBody.urlEncodedFields(Array((request.query ?? "").utf8)))
            parameters.merge(try FormBody.form(contentType: request.contentType, body: request.body))
            if let form = request.form { parameters.merge(form) }
            guard let route = FeatureServerRoute(path: request.path) else {
                throw ServiceError.notFound("No resource at \(request.path).")
            }
            return try await answer(route, parameters: parameters)
        } catch let error as ServiceError {
            logger.debug("answered with an error", metadata: ["path": "\(request.path)", "error": "\(error)"])
            return Self.renderError(error.error)
        } catch is CancellationError {
            return Self.renderError(ServiceError.internalError("Request cancelled.").error)
        } catch {
            logger.error("request failed", metadata: ["path": "\(request.path)", "error": "\(error)"])
            return Self.renderError(ServiceError.internalError("\(error)").error)
        }
    }

    private func answer(_ route: FeatureServerRoute, parameters: RequestParameters) async throws -> ServerResponse {
        let pretty = parameters.wantsPrettyJSON
        switch route {
        case .restInfo:
            return Self.render(RestInfo(), pretty: pretty)
        case .catalog:
            return Self.render(MetadataDocuments.catalog(services), pretty: pretty)
        case .service(let name):
            let store = try store(named: name)
            return Self.render(MetadataDocuments.serviceInfo(store.definition, limits: recordLimits(for: store)), pretty: pretty)
        case .layer(let name, let id):
            let layer = try layerDefinition(service: name, id: id)
            return Self.render(MetadataDocuments.layerInfo(layer, limits: recordLimits(for: try store(named: name))), pretty: pretty)
        case .query(let name, let id):
            let store = try store(named: name)
            return try await LayerQueryResponse.answer(
                store: store, layerId: id, parameters: parameters, limits: recordLimits(for: store), logger: logger)
        case .applyEdits(let name, let id):
            let store = try store(named: name)
            _ = try layerDefinition(service: name, id: id)
            let batch = try EditBatch.parse(parameters)
            let result = try await store.applyEdits(layerId: id, batch: batch)
            guard !pretty else { return Self.render(result, pretty: true) }
            // The hot answer of batched edits: written directly rather than through JSONEncoder.
            var writer = JSONWriter(capacity: 64 + result.addResults.count * 80)
            writer.write(result)
            return ServerResponse(status: 200, body: ByteBuffer(bytes: writer.bytes))
        case .editOperation(let name, let id, let operation):
            return try await editOperation(operation, store: try store(named: name), layerId: id, parameters: parameters)
        case .serviceApplyEdits(let name):
            return try await serviceApplyEdits(store: try store(named: name), parameters: parameters)
        case .queryRelatedRecords(let name, let id):
            return try await queryRelatedRecords(store: try store(named: name), layerId: id, parameters: parameters)
        case .relationships(let name):
            return Self.render(MetadataDocuments.relationships(try store(named: name).definition), pretty: pretty)
        case .contingentValues(let name, let id):
            let layer = try layerDefinition(service: name, id: id)
            return Self.render(MetadataDocuments.contingentValues(of: [layer], serviceLevel: false), pretty: pretty)
        case .queryContingentValues(let name):
            let store = try store(named: name)
            var layers = store.definition.layers.filter { $0.contingentValues?.isEmpty == false }
            if let text = parameters["layers"] {
                let wanted = try LayerQuery.parseObjectIds(text)
                layers = layers.filter { wanted.contains(Int64($0.info.id)) }
            }
            return Self.render(MetadataDocuments.contingentValues(of: layers, serviceLevel: true), pretty: pretty)
        case .serviceQuery(let name):
            return try await serviceQuery(store: try store(named: name), parameters: parameters)
        case .portal(let resource):
            return Self.render(PortalDocuments.document(resource), pretty: pretty)
        case .attachments(let name, let id, let objectId):
            return try await attachmentInfos(store: try store(named: name), layerId: id, objectId: objectId, parameters: parameters)
        case .attachment(let name, let id, let objectId, let attachmentId):
            return try await attachmentBytes(store: try store(named: name), layerId: id, objectId: objectId, attachmentId: attachmentId)
        case .attachmentEdit(let name, let id, let objectId, let operation):
            return try await attachmentEdit(operation, store: try store(named: name), layerId: id, objectId: objectId, parameters: parameters)
        case .queryAttachments(let name, let id):
            return try await queryAttachments(store: try store(named: name), layerId: id, parameters: parameters)
        case .uploads(let name, let route):
            return try await uploads(route, store: try store(named: name), parameters: parameters)
        }
    }

    /// The record limits of `store`'s service: the server's, with the dataset's `maxRecordCount` when that is smaller.
    func recordLimits(for store: FeatureStore) -> RecordLimits {
        recordLimits.lowering(maxRecordCountTo: store.definition.maxRecordCount)
    }

    /// The `maxRecordCount` of `store`'s service (``recordLimits(for:)``).
    func maxRecordCount(for store: FeatureStore) -> Int { recordLimits(for: store).maxRecordCount }

    func store(named name: String) throws(ServiceError) -> FeatureStore {
        guard let store = stores[name.lowercased()] else { throw ServiceError.notFound("Service \(name)/FeatureServer does not exist.") }
        return store
    }

    func layerDefinition(service: String, id: Int) throws(ServiceError) -> LayerDefinition {
        guard let layer = try store(named: service).definition.layer(id: id) else {
            throw ServiceError.notFound("Layer \(id) of service \(service) does not exist.")
        }
        return layer
    }

    /// The envelope `{"error":{"code","extendedCode"?,"message","details"}}` for `error`, keys in ArcGIS' order, HTTP 200.
    static func renderError(_ error: ArcGISError) -> ServerResponse {
        var text = #"{"error":{"code":"# + String(error.code)
        if let extendedCode = error.extendedCode { text += #","extendedCode":"# + String(extendedCode) }
        if let messageCode = error.messageCode { text += #","messageCode":"# + jsonString(messageCode) }
        text += #","message":"# + jsonString(error.message)
        text += #","details":["# + error.details.map(jsonString).joined(separator: ",") + "]}}"
        return ServerResponse(status: 200, body: ByteBuffer(string: text))
    }

    /// `text` as a JSON string literal.
    static func jsonString(_ text: String) -> String {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.write(string: text)
        return writer.string
    }

    /// `value` as JSON with sorted keys (byte-identical answers for identical data; no measurable cost), indented for
    /// `f=pjson`; HTTP 200.
    static func render(_ value: some Encodable, pretty: Bool) -> ServerResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.withoutEscapingSlashes, .prettyPrinted, .sortedKeys] : [.withoutEscapingSlashes, .sortedKeys]
        do {
            let data = try encoder.encode(value)
            return ServerResponse(status: 200, body: ByteBuffer(bytes: data))
        } catch {
            let fallback = #"{"error":{"code":500,"message":"Unable to complete operation.","details":["The answer could not be encoded."]}}"#
            return ServerResponse(status: 200, body: ByteBuffer(string: fallback))
        }
    }
}
