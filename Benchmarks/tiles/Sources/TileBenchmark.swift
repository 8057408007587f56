import ArgumentParser
import FeatureCollectionPBF
import FeatureModel
import FeatureServiceClient
import FeatureloadBenchmarkSupport
import Foundation

/// `featureload-tile-bench`: map tile queries, JSON and PBF, on a point, a polyline and a polygon layer at three
/// zoom levels, against `featureload serve` and against the floor (`featureload-floor` answering them straight from
/// SQLite and GEOS); then the server's memory over 100,000 tile queries. See Benchmarks/README.md.
@main
struct TileBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "featureload-tile-bench",
        abstract: "Map tile queries: serve's CPU per tile against the floor, PBF bytes against JSON, RSS over 100,000 tiles.")

    @Option(help: "The featureload binary to serve with (default: next to this one).")
    var featureload: String?

    @Option(help: "The floor server binary (default: featureload-floor next to this one).")
    var floor: String?

    @Option(help: "Directory the reports go to.")
    var output: String = "Reports/benchmarks"

    @Option(help: "Generated rows per layer of the parks and parkboundaries datasets (serve --rows).")
    var rows: Int = 20_000

    @Option(help: "Zoom levels of the 512-px tiles (the world is 2^level tiles across).")
    var levels: [Int] = [4, 7, 10]

    @Option(help: "Tiles per layer and level, spread over the layer's extent.")
    var tilesPerLevel: Int = 32

    @Option(help: "Queries in flight.")
    var concurrency: Int = 8

    @Option(help: "Alternating rounds per layer and level (serve JSON, floor, serve PBF).")
    var rounds: Int = 2

    @Option(help: "Seconds per round.")
    var seconds: Double = 3

    @Option(help: "Tile queries of the memory run (0: skip).")
    var sustainQueries: Int = 100_000

    @Option(help: "The longest the memory run may take, seconds.")
    var sustainSeconds: Double = 900

    func validate() throws {
        guard rows >= 1, rows <= 1_000_000 else { throw ValidationError("--rows must be 1…1,000,000") }
        guard !levels.isEmpty, levels.allSatisfy({ (0...20).contains($0) }) else { throw ValidationError("--levels must be 0…20") }
        guard tilesPerLevel >= 1, concurrency >= 1, rounds >= 1 else { throw ValidationError("--tiles-per-level, --concurrency, --rounds ≥ 1") }
        guard seconds > 0, seconds <= 600, sustainQueries >= 0, sustainSeconds > 0, sustainSeconds <= 3600 else {
            throw ValidationError("0 < --seconds ≤ 600, --sustain-queries ≥ 0, 0 < --sustain-seconds ≤ 3600")
        }
    }

    func run() async throws {
        let binary = featureload ?? siblingBinary("featureload")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-tile-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let services = ["parks", "parkboundaries"]
        log("starting featureload serve with \(services.joined(separator: ", ")), --rows \(rows) …")
        let server = try ServerProcess(
            binary: binary,
            arguments: ["serve", "--port", "0", "--data", directory.path, "--rows", "\(rows)", "--log-level", "error"]
                + services.flatMap { ["--dataset", $0] },
            databasePath: directory.path, services: services.count, timeout: 900)
        defer { server.stop() }
        log("serve: \(server.serviceURLs.joined(separator: " ")) (pid \(server.process.processIdentifier))")
        var result = TileBenchmarkResult(binary: binary, rows: rows, concurrency: concurrency, rounds: rounds, secondsPerRound: seconds)
        result.loadAverageBefore = loadAverage()

        try await withCurlTransport(configuration: .init(maxConnections: max(concurrency, 4))) { transport in
            var layers: [(TileLayer, Extent)] = []
            for url in server.serviceURLs { layers += try await Self.layers(transport, serviceURL: url) }
            let floorArguments =
                ["--data", directory.appendingPathComponent("floor.sqlite").path]
                + layers.flatMap { layer, _ in
                    let path = directory.appendingPathComponent("\(layer.service).sqlite").path
                    return ["--tile-layer", "\(layer.service)/\(layer.id)/\(layer.geometryType)/\(layer.objectIdField)=\(path)"]
                }
            let floorServer = try ServerProcess(binary: floor ?? siblingBinary("featureload-floor"), arguments: floorArguments, databasePath: "")
            defer { floorServer.stop() }
            log("floor: \(floorServer.serviceURL) (pid \(floorServer.process.processIdentifier))")

            for (layer, extent) in layers {
                for level in levels {
                    let tiles = Tile.covering(
                        xmin: extent.xmin, ymin: extent.ymin, xmax: extent.xmax, ymax: extent.ymax, level: level, limit: tilesPerLevel)
                    var item = TileCase(layer: layer, level: level, tiles: tiles)
                    try await check(&item, transport, serve: server, floor: floorServer)
                    try await measure(&item, transport, serve: server, floor: floorServer)
                    log(
                        String(
                            format: "%@/%d level %d: %.1f features/tile; serve %.0f µs/tile, floor %.0f µs/tile (%.2f×); PBF/JSON bytes %.2f",
                            layer.service, layer.id, level, item.featuresPerTile, item.serveJSON.microsecondsPerQuery,
                            item.floorJSON.microsecondsPerQuery, item.cpuRatio, item.pbfRatio))
                    result.cases.append(item)
                }
            }
            if sustainQueries > 0 {
                result.sustain = try await sustain(transport, serve: server, cases: result.cases)
            }
        }
        result.loadAverageAfter = loadAverage()
        let (json, markdown) = try TileReport.write(result, to: output)
        log("wrote \(json) and \(markdown)")
        print(TileReport.markdown(result))
    }

    /// The layers with geometry of a service, with their object ID field and extent (WGS 84).
    static func layers(_ transport: CurlTransport, serviceURL: String) async throws -> [(TileLayer, Extent)] {
        let service = serviceURL.split(separator: "/").dropLast().last.map(String.init) ?? ""
        var layers: [(TileLayer, Extent)] = []
        for case .object(let entry) in try await document(transport, serviceURL + "?f=json")["layers"]?.arrayValue ?? [] {
            guard let id = entry["id"]?.intValue else { continue }
            let document = try await document(transport, serviceURL + "/\(id)?f=json")
            guard let type = document["geometryType"]?.stringValue, let objectIdField = document["objectIdField"]?.stringValue,
                case .object(let box)? = document["extent"], let xmin = box["xmin"]?.doubleValue, let ymin = box["ymin"]?.doubleValue,
                let xmax = box["xmax"]?.doubleValue, let ymax = box["ymax"]?.doubleValue
            else { continue }
            let name = document["name"]?.stringValue ?? "\(id)"
            layers.append(
                (
                    TileLayer(service: service, id: Int(id), name: name, geometryType: type, objectIdField: objectIdField),
                    Extent(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
                ))
        }
        return layers
    }

    static func document(_ transport: CurlTransport, _ url: String) async throws -> [String: JSONValue] {
        let response = try await transport.send(HTTPRequest(url: url))
        guard case .object(let object) = try JSONReader.parse(bytes: response.body) else { throw BenchmarkFailure("\(url): not an object") }
        return object
    }

    func urls(_ item: TileCase, serviceURL: String, format: String) -> [String] {
        let layerURL = Self.serviceURL(serviceURL, service: item.layer.service) + "/\(item.layer.id)"
        return item.tiles.map { $0.query(layerURL: layerURL, objectIdField: item.layer.objectIdField, format: format) }
    }

    /// `…/rest/services/<service>/FeatureServer` on the server of `anyServiceURL`.
    static func serviceURL(_ anyServiceURL: String, service: String) -> String {
        guard let range = anyServiceURL.range(of: "/rest/services/") else { return anyServiceURL }
        return anyServiceURL[..<range.upperBound] + service + "/FeatureServer"
    }

    /// One query per tile to each server and format: the same object IDs from both, the features and vertices they
    /// answer, and the bytes of each format.
    func check(_ item: inout TileCase, _ transport: CurlTransport, serve: ServerProcess, floor: ServerProcess) async throws {
        let serveURLs = urls(item, serviceURL: serve.serviceURL, format: "json")
        let floorURLs = urls(item, serviceURL: floor.serviceURL, format: "json")
        let pbfURLs = urls(item, serviceURL: serve.serviceURL, format: "pbf")
        var features = 0
        var serveVertices = 0
        var floorVertices = 0
        for index in item.tiles.indices {
            let mine = try await transport.send(HTTPRequest(url: serveURLs[index], timeout: .seconds(120)))
            try TileLoad.check(mine, contentType: "application/json", url: serveURLs[index])
            let theirs = try await transport.send(HTTPRequest(url: floorURLs[index], timeout: .seconds(120)))
            try TileLoad.check(theirs, contentType: "application/json", url: floorURLs[index])
            let served = try TileLoad.contents(mine.body, objectIdField: item.layer.objectIdField)
            let floored = try TileLoad.contents(theirs.body, objectIdField: item.layer.objectIdField)
            if served.ids != floored.ids || served.exceeded != floored.exceeded { item.differingTiles.append(item.tiles[index]) }
            if served.exceeded { item.exceededTiles += 1 }
            features += served.ids.count
            serveVertices += served.vertices
            floorVertices += floored.vertices
            item.jsonBytes += mine.body.count
            let pbf = try await transport.send(HTTPRequest(url: pbfURLs[index], timeout: .seconds(120)))
            do {
                try TileLoad.check(pbf, contentType: "application/x-protobuf", url: pbfURLs[index])
                guard case .features(let set) = try PBFQueryAnswer(serializedBytes: pbf.body, coordinates: .grid) else {
                    throw BenchmarkFailure("\(pbfURLs[index]) answered no features")
                }
                let ids = set.features.compactMap { $0[attribute: item.layer.objectIdField]?.intValue }
                if ids != served.ids || (set.exceededTransferLimit ?? false) != served.exceeded {
                    throw BenchmarkFailure("\(pbfURLs[index]): the PBF answer holds other features than the JSON answer")
                }
                item.pbfBytes += pbf.body.count
            } catch {
                item.pbfProblem = item.pbfProblem ?? "\(error)"
            }
        }
        let tiles = Double(max(1, item.tiles.count))
        item.featuresPerTile = Double(features) / tiles
        item.serveVerticesPerTile = Double(serveVertices) / tiles
        item.floorVerticesPerTile = Double(floorVertices) / tiles
        if !item.differingTiles.isEmpty {
            log("\(item.layer.service)/\(item.layer.id) level \(item.level): \(item.differingTiles.count) tiles answered differently by the floor")
        }
    }

    /// Alternating rounds: serve JSON, the floor, serve PBF (the order turning each round), each for `seconds`.
    func measure(_ item: inout TileCase, _ transport: CurlTransport, serve: ServerProcess, floor: ServerProcess) async throws {
        enum Kind: CaseIterable { case serveJSON, floorJSON, servePBF }
        let maximum = 200_000
        for round in 0..<rounds {
            var kinds = Kind.allCases
            kinds = Array(kinds[(round % kinds.count)...] + kinds[..<(round % kinds.count)])
            for kind in kinds {
                if kind == .servePBF && item.pbfProblem != nil { continue }
                let process = kind == .floorJSON ? floor : serve
                let urls = urls(item, serviceURL: process.serviceURL, format: kind == .servePBF ? "pbf" : "json")
                let contentType = kind == .servePBF ? "application/x-protobuf" : "application/json"
                guard let before = process.cpuSeconds else { throw BenchmarkFailure("cannot read /proc/\(process.process.processIdentifier)/stat") }
                let outcome = try await TileLoad.run(
                    transport, urls: urls, contentType: contentType, seconds: seconds, maximum: maximum, concurrency: concurrency)
                guard let after = process.cpuSeconds else { throw BenchmarkFailure("cannot read /proc/\(process.process.processIdentifier)/stat") }
                let measured = CPUMeasure(queries: outcome.queries, cpuSeconds: after - before, seconds: outcome.seconds, bytes: outcome.bytes)
                switch kind {
                case .serveJSON: item.serveJSON.add(measured)
                case .floorJSON: item.floorJSON.add(measured)
                case .servePBF: item.servePBF.add(measured)
                }
            }
        }
    }

    /// `sustainQueries` tile queries against serve, JSON and PBF in turn, over the tiles of every layer at all but
    /// the lowest level (the many tiles of a map zoomed in; a map zoomed out asks for few); RSS every 5 % of them.
    func sustain(_ transport: CurlTransport, serve: ServerProcess, cases: [TileCase]) async throws -> Sustain {
        let lowest = levels.min() ?? 0
        let chosen = cases.filter { $0.level != lowest || levels.count == 1 }
        var collected: [(String, String)] = []
        for item in chosen {
            collected += urls(item, serviceURL: serve.serviceURL, format: "json").map { ($0, "application/json") }
            if item.pbfProblem == nil { collected += urls(item, serviceURL: serve.serviceURL, format: "pbf").map { ($0, "application/x-protobuf") } }
        }
        let targets = collected
        var sustain = Sustain()
        sustain.every = max(1, sustainQueries / 20)
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(sustainSeconds * 1e9)
        log("memory run: \(sustainQueries) tile queries over \(targets.count) URLs …")
        while sustain.queries < sustainQueries && DispatchTime.now().uptimeNanoseconds < deadline {
            let batch = min(sustain.every, sustainQueries - sustain.queries)
            let offset = sustain.queries
            let answered = try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<concurrency {
                    group.addTask {
                        var count = 0
                        for index in stride(from: worker, to: batch, by: concurrency) {
                            guard DispatchTime.now().uptimeNanoseconds < deadline else { break }
                            let (url, contentType) = targets[(offset + index) % targets.count]
                            let response = try await transport.send(HTTPRequest(url: url, timeout: .seconds(120)))
                            try TileLoad.check(response, contentType: contentType, url: url)
                            count += 1
                        }
                        return count
                    }
                }
                return try await group.reduce(0, +)
            }
            sustain.queries += answered
            if let resident = serve.residentBytes { sustain.residentBytes.append(resident) }
        }
        sustain.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        log(String(format: "memory run: %d queries in %.0f s; RSS growth %.3f×", sustain.queries, sustain.seconds, sustain.growth))
        return sustain
    }
}

extension JSONValue {
    fileprivate var arrayValue: [JSONValue]? {
        if case .array(let values) = self { return values }
        return nil
    }
}
