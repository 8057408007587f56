// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// The benchmark executables build only when asked (FEATURELOAD_BENCHMARKS=1, as the scripts/benchmark-* scripts set
// it): a test or CLI build has no use for them, and they cost a debug build four targets.
let benchmarks = Context.environment["FEATURELOAD_BENCHMARKS"].map { !["", "0"].contains($0) } ?? false

let package = Package(
    name: "featureload",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "featureload", targets: ["featureload"]),
        .library(name: "FeatureModel", targets: ["FeatureModel"]),
        .library(name: "FeatureServiceClient", targets: ["FeatureServiceClient"]),
        .library(name: "LocalFeatureServer", targets: ["LocalFeatureServer"]),
        .library(name: "FeatureCollectionPBF", targets: ["FeatureCollectionPBF"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Traits off: swift-configuration support is not used and costs build time.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        // Named because LocalFeatureServer imports them directly; both already come with Hummingbird.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        // HTTPS for `serve --tls-*` (the ArcGIS API for Python only talks to a portal over https). Hummingbird's TLS
        // layer already depends on it; named to load PEM files. Adds about 100 s to a clean debug build (README).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // HTTP/2 frames, to end a response on its last DATA frame (HTTP2EndStreamCoalescer); HummingbirdHTTP2 already
        // depends on it, so nothing new is fetched or built.
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        // Live metrics (`--metrics-listen`): the libraries count through the swift-metrics API (already in the graph
        // through Hummingbird); the CLI backs it with swift-prometheus and serves /metrics in the text format.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Esri's FeatureCollection protocol buffers (`f=pbf` answers): the runtime of the code scripts/generate-pbf
        // generated once from our .proto and committed, so a build needs no protoc plugin.
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        .target(
            name: "FeatureModel",
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // zlib's deflate (gzip request bodies and .gz outputs); libcurl links it too, but the client calls it itself.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // GEOS, the geometry engine (spatial predicates and simplification of the local service's queries).
        .systemLibrary(
            name: "CGEOS",
            pkgConfig: "geos",
            providers: [.apt(["libgeos-dev"])]
        ),
        // What the local service and its tile benchmark share of GEOS: ArcGIS geometries in and out, prepared
        // predicates, simplification, on one context per thread.
        .target(
            name: "GEOSSupport",
            dependencies: ["FeatureModel", "CGEOS"],
            swiftSettings: swiftSettings
        ),
        // Esri's FeatureCollection PBF: answers encoded by the local service, decoded by clients and tests.
        .target(
            name: "FeatureCollectionPBF",
            dependencies: ["FeatureModel", .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            exclude: ["Proto"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FeatureServiceClient",
            dependencies: [
                "FeatureModel",
                "CCurl",
                "CZlib",
            ],
            swiftSettings: swiftSettings
        ),
        // What the store and the journal share of SQLite: the thread that copies a write-ahead log into its file, off
        // the writer's path, and values bound straight through SQLite's C API.
        .target(
            name: "SQLiteSupport",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LocalFeatureServer",
            dependencies: [
                "FeatureModel",
                "FeatureCollectionPBF",
                "SQLiteSupport",
                // Spatial filters' exact predicates.
                "GEOSSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API as GRDB links it, to bind values of the batched insert path directly.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                // HTTP/2 over TLS (ALPN h2 next to http/1.1), so multiplexing clients are exercised end to end.
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                // HTTPParserError: a malformed chunked body is a 400 that closes the connection, not a 500.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LoadRunner",
            dependencies: [
                "FeatureModel",
                "FeatureServiceClient",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // `featureload apply`: a file of edits into a service, exactly once, resumable. Beside LoadRunner, never
        // importing it; SQLite (GRDB) for its journal and for reading GeoPackage inputs.
        .target(
            name: "BatchApply",
            dependencies: [
                "FeatureModel",
                "SQLiteSupport",
                "FeatureServiceClient",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "featureload",
            dependencies: [
                "BatchApply",
                "FeatureModel",
                "FeatureServiceClient",
                "LocalFeatureServer",
                "LoadRunner",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // The /metrics listener of --metrics-listen, and its bound port (a NIO channel's local address).
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                // A graceful stop of that listener (a cancelled one logs its open connections as errors).
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FeatureloadTestSupport",
            dependencies: [
                "FeatureModel",
                "FeatureServiceClient",
                "LocalFeatureServer",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GEOSSupportTests",
            dependencies: ["GEOSSupport", "FeatureModel"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FeatureCollectionPBFTests",
            dependencies: ["FeatureCollectionPBF", "FeatureModel"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FeatureModelTests",
            dependencies: ["FeatureModel"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FeatureServiceClientTests",
            dependencies: [
                "FeatureServiceClient", "FeatureModel", "FeatureloadTestSupport", "LocalFeatureServer",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LocalFeatureServerTests",
            dependencies: [
                "LocalFeatureServer", "FeatureModel", "FeatureloadTestSupport", "FeatureServiceClient", "SQLiteSupport",
                // f=pbf answers read back with the same decoder a client uses.
                "FeatureCollectionPBF",
                // Rows written behind the server's back (a stored geometry no edit could write today).
                .product(name: "GRDB", package: "GRDB.swift"),
                // A TLS client for the HTTPS listener's tests (CurlTransport cannot trust a self-signed certificate).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The handshake's ALPN result (TLSUserEvent) for the HTTP/2 listener's tests.
                .product(name: "NIOTLS", package: "swift-nio"),
                // The service group settings a server run makes (its shutdown grace period).
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LoadRunnerTests",
            dependencies: [
                "LoadRunner", "FeatureModel", "FeatureServiceClient", "LocalFeatureServer", "FeatureloadTestSupport",
                .product(name: "Logging", package: "swift-log"),
                // The live-metrics mapping checked against a registry of its own (no process-global bootstrap).
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BatchApplyTests",
            dependencies: [
                "BatchApply", "FeatureModel", "FeatureServiceClient", "LocalFeatureServer", "FeatureloadTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "featureloadTests",
            dependencies: [
                "featureload", "LoadRunner", "LocalFeatureServer", "FeatureloadTestSupport", "BatchApply", "FeatureServiceClient",
                .product(name: "Logging", package: "swift-log"),
            ],
            // Saved reports the tests read by path (a version-1 report from an earlier release).
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
    ]
)

if benchmarks {
    package.targets += [
        // Transport micro-benchmark against wrk: its own executable so a release build needs no CLI change.
        .executableTarget(
            name: "featureload-transport-bench",
            dependencies: ["FeatureServiceClient", "LocalFeatureServer", .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/transport/Sources",
            swiftSettings: swiftSettings
        ),
        // The floor under any libcurl client, for the generator and transport benchmarks: the same closed loop in C,
        // with nothing of featureload in it (Benchmarks/libcurl-loop/main.c).
        .executableTarget(
            name: "featureload-libcurl-loop",
            path: "Benchmarks/libcurl-loop",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        // What the benchmark executables share: a `featureload serve` child process and its CPU and memory readings.
        .target(
            name: "FeatureloadBenchmarkSupport",
            path: "Benchmarks/support",
            swiftSettings: swiftSettings
        ),
        // Server batch benchmark (Benchmarks/README.md): drives `featureload serve` over libcurl and SQLite's C API directly.
        .executableTarget(
            name: "featureload-bench",
            dependencies: [
                "FeatureModel", "FeatureServiceClient", "FeatureloadBenchmarkSupport",
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/server-batches/Sources",
            swiftSettings: swiftSettings
        ),
        // Map tile benchmark (Benchmarks/README.md): tile queries as a web map sends them, against `featureload serve`
        // and against featureload-floor answering them straight from SQLite's C API and GEOS.
        .executableTarget(
            name: "featureload-tile-bench",
            dependencies: [
                "FeatureModel", "FeatureServiceClient", "FeatureloadBenchmarkSupport", "FeatureCollectionPBF",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/tiles/Sources",
            swiftSettings: swiftSettings
        ),
        // The floor `featureload serve` is measured against (Benchmarks/README.md): the least a Hummingbird + GRDB
        // server does for a single-add applyEdits, and a Hummingbird + SQLite + GEOS one for a map tile query.
        .executableTarget(
            name: "featureload-floor",
            dependencies: [
                "FeatureModel", "FeatureloadBenchmarkSupport", "GEOSSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Benchmarks/server-floor",
            swiftSettings: swiftSettings
        ),
    ]
}
