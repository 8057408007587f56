import BatchApply
import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

/// Adds get ordered GlobalIDs, cheap for the service's index; an input that an earlier release applied (with the
/// hashed IDs it derived) is still found, not added twice, when it is applied again without that run's journal.
@Suite struct ApplyGlobalIDSchemeTests {
    /// The GlobalIDs of layer 0's parks named `prefix …`, in input order (by visitors).
    static func globalIds(in data: String, prefix: String) async throws -> [String] {
        try await withTestServer(databasePath: data) { server in
            try await withCurlTransport { transport in
                let layer = FeatureLayerClient(url: server.serviceURL + "/0", transport: transport)
                let features = try await layer.queryAll(
                    FeatureQuery(whereClause: "name LIKE '\(prefix) %'", outFields: ["GlobalID"], returnGeometry: false, orderByFields: "visitors"),
                    pageSize: 2000)
                return features.compactMap { $0[attribute: "GlobalID"]?.stringValue }
            }
        }
    }

    /// Applies `input` to layer 0 of the data file `data` as a release before ordered IDs did: planned with hashed
    /// GlobalIDs into a journal whose header does not name its scheme, then sent.
    static func applyAsEarlierRelease(_ input: String, data: String, journalPath: String) async throws {
        try await withTestServer(databasePath: data) { server in
            try await withCurlTransport { transport in
                let service = FeatureService(url: server.serviceURL, transport: transport)
                let layer = try await service.layerInfo(id: 0)
                var header = JournalHeader(
                    input: input, inputSize: 0, target: service.url, layer: 0, objectIdField: layer.objectIdField,
                    globalIdField: layer.globalIdField ?? "GlobalID", settings: ApplySettings(batchSize: 50, concurrency: 2),
                    reading: JournalHeader.Reading(format: .geojson, options: InputOptions(), skipInvalid: false))
                header.globalIds = nil
                let journal = try ApplyJournal.create(at: journalPath, header: header)
                var planner = ApplyPlanner(layers: [0: layer], defaultLayer: 0, batchSize: 50)
                planner.globalIdScheme = .hashed
                var reader = try InputFile.open(path: input, format: .geojson, options: InputOptions())
                #expect(try planner.plan(&reader, into: journal).problemCount == 0)
                try journal.finishPlan()
                let applier = BatchApplier(
                    journal: journal, service: service, settings: header.settings, keys: [0: (layer.objectIdField, layer.globalIdField)])
                _ = try await applier.run()
                #expect(try journal.counts().applied == 300)
            }
        }
    }

    @Test(
        "a new run derives ordered GlobalIDs; an input an earlier release applied is found by its hashed IDs and not added twice, without that run's journal",
        .timeLimit(.minutes(2)))
    func earlierReleaseFound() async throws {
        let directory = try TemporaryDirectory()
        let input = directory.path + "/parks.geojson"
        try ApplyCommandTests.geojson(300, prefix: "Scheme").write(toFile: input, atomically: true, encoding: .utf8)

        // This release: ordered IDs, in input order; applying again with a new journal adds nothing.
        let ordered = directory.path + "/ordered.sqlite"
        for round in 0..<2 {
            let run = try await Featureload.run([
                "apply", input, "--to", "local", "--layer", "0", "--data", ordered, "--journal", directory.path + "/ordered-\(round).journal",
            ])
            #expect(run.status == 0, "\(run.output)\(run.errorOutput)")
            #expect(!run.output.contains("an earlier release"), "\(run.output)")
            if round == 1 { #expect(run.output.contains("300 adds were found applied already"), "\(run.output)") }
        }
        let orderedIds = try await Self.globalIds(in: ordered, prefix: "Scheme")
        #expect(orderedIds.count == 300, "each park once")
        #expect(orderedIds == orderedIds.sorted() && orderedIds.first?.hasPrefix("{00000000-0000-8") == true, "\(orderedIds.prefix(3))")

        // An earlier release's run, then this release's without its journal: found, not added again.
        let earlier = directory.path + "/earlier.sqlite"
        try await Self.applyAsEarlierRelease(input, data: earlier, journalPath: directory.path + "/earlier.journal")
        let hashedIds = try await Self.globalIds(in: earlier, prefix: "Scheme")
        #expect(hashedIds.count == 300 && hashedIds != hashedIds.sorted(), "the earlier release's IDs are hashed")
        let again = try await Featureload.run([
            "apply", input, "--to", "local", "--layer", "0", "--data", earlier, "--journal", directory.path + "/again.journal",
        ])
        #expect(again.status == 0, "\(again.output)\(again.errorOutput)")
        #expect(again.output.contains("200 of the first 200 adds of") && again.output.contains("an earlier release derived"), "\(again.output)")
        #expect(again.output.contains("300 adds were found applied already"), "\(again.output)")
        #expect(try await Self.globalIds(in: earlier, prefix: "Scheme") == hashedIds, "nothing added twice")
    }
}
