import BatchApply
import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

/// End-to-end: `featureload apply` as a GIS engineer runs it, against the embedded service over a real SQLite file.
@Suite(.serialized) struct ApplyCommandTests {
    /// A GeoJSON FeatureCollection of `count` parks; the records at `invalid` carry a state too long for the field.
    static func geojson(_ count: Int, invalid: Set<Int> = [], prefix: String = "Park") -> String {
        let features = (0..<count).map { index -> String in
            let state = invalid.contains(index) ? "CALIFORNIA" : "CA"
            let x = -120 + Double(index % 1000) * 0.001
            let y = 36 + Double(index / 1000) * 0.001
            return
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(x),\#(y)]},"properties":{"name":"\#(prefix) \#(index)","state":"\#(state)","visitors":\#(index)}}"#
        }
        return #"{"type":"FeatureCollection","features":["# + "\n" + features.joined(separator: ",\n") + "\n]}\n"
    }

    /// Parks in the embedded service's data file whose name starts with `prefix`, counted by a server started on it.
    static func parks(in data: String, prefix: String) async throws -> (count: Int, names: [String: Int]) {
        try await withTestServer(databasePath: data) { server in
            try await withCurlTransport { transport in
                let layer = FeatureLayerClient(url: server.serviceURL + "/0", transport: transport)
                let features = try await layer.queryAll(
                    FeatureQuery(whereClause: "name LIKE '\(prefix) %'", outFields: ["name"], returnGeometry: false, orderByFields: "OBJECTID"),
                    pageSize: 2000)
                var names: [String: Int] = [:]
                for feature in features { names[feature[attribute: "name"]?.stringValue ?? "", default: 0] += 1 }
                return (features.count, names)
            }
        }
    }

    @Test(
        "an invalid record stops the run before anything is sent, naming its line; --skip-invalid applies the rest and writes it to the rejects file",
        .timeLimit(.minutes(2)))
    func invalidRecords() async throws {
        let directory = try TemporaryDirectory()
        let input = directory.path + "/parks.geojson"
        try Self.geojson(300, invalid: [7, 250]).write(toFile: input, atomically: true, encoding: .utf8)
        let data = directory.path + "/parks.sqlite"
        let journal = directory.path + "/parks.journal"
        let refused = try await Featureload.run(["apply", input, "--to", "local", "--layer", "0", "--data", data, "--journal", journal])
        #expect(refused.status == 2, "\(refused.output)\(refused.errorOutput)")
        #expect(refused.errorOutput.contains("line 9, record 8"), "\(refused.errorOutput)")
        #expect(refused.errorOutput.contains("line 252, record 251"))
        #expect(refused.errorOutput.contains("state"))
        #expect(refused.errorOutput.contains("2 records are invalid, so nothing was sent"), "\(refused.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: journal), "no journal is left for a run that sent nothing")
        #expect(try await Self.parks(in: data, prefix: "Park").count == 0, "nothing was sent")

        // A dry run over a data file that is not there makes none.
        let fresh = directory.path + "/fresh.sqlite"
        let dryFresh = try await Featureload.run(["apply", input, "--to", "local", "--layer", "0", "--data", fresh, "--dry-run"])
        #expect(dryFresh.status == 2 && dryFresh.output.contains("record 8"), "\(dryFresh.output)\(dryFresh.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: fresh), "a dry run leaves no data file")
        let dry = try await Featureload.run(["apply", input, "--to", "local", "--layer", "National Parks", "--data", data, "--dry-run"])
        #expect(dry.status == 2 && dry.output.contains("record 8") && dry.output.contains("nothing was sent"), "\(dry.output)")

        let rejects = directory.path + "/rejects.geojson"
        let applied = try await Featureload.run([
            "apply", input, "--to", "local", "--layer", "0", "--data", data, "--journal", journal, "--skip-invalid", "--rejects", rejects, "--verify",
            "--report", directory.path + "/report.json",
        ])
        #expect(applied.status == 1, "some records were not applied: \(applied.output)\(applied.errorOutput)")
        #expect(applied.output.contains("applied 298 of 298 edits"), "\(applied.output)")
        #expect(applied.output.contains("verify: 298 of 298 applied adds found once"))
        let rejected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: rejects))) as? [String: Any]
        let names = (rejected?["features"] as? [[String: Any]])?.compactMap { ($0["properties"] as? [String: Any])?["name"] as? String }
        #expect(names == ["Park 7", "Park 250"], "the rejects file is GeoJSON of the invalid records")
        let reasons = try String(contentsOfFile: rejects + ".reasons.tsv", encoding: .utf8)
        #expect(reasons.contains("8\t9\tinvalid") && reasons.contains("state"), "\(reasons)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.path + "/report.json"))) as? [String: Any]
        #expect(report?["applied"] as? Int == 298)
        #expect(report?["invalid"] as? Int == 2, "the report counts the records that were not sent")
        #expect(try await Self.parks(in: data, prefix: "Park").count == 298)

        // `verify` afterwards: the journal against the data it recorded; a data file that is not there, or no journal,
        // is an error (exit 2), not a mismatch.
        let verified = try await Featureload.run(["verify", journal])
        #expect(verified.status == 0 && verified.output.contains("298 of 298 applied adds found once"), "\(verified.output)\(verified.errorOutput)")
        let elsewhere = try await Featureload.run(["verify", journal, "--data", directory.path + "/typo.sqlite"])
        #expect(
            elsewhere.status == 2 && elsewhere.errorOutput.contains("no service data at \(directory.path)/typo.sqlite"), "\(elsewhere.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/typo.sqlite"), "nothing made afresh")
        let missing = try await Featureload.run(["verify", directory.path + "/nosuch.journal"])
        #expect(missing.status == 2 && missing.errorOutput.contains("no journal at"), "\(missing.errorOutput)")
    }

    /// Runs apply in the background and sends SIGKILL once `when` holds for its journal (or it ends).
    static func killed(
        _ arguments: [String], journal: String, when: @escaping (ApplyJournal) throws -> Bool
    ) throws -> (killed: Bool, counts: JournalCounts?, inDoubt: Int) {
        let process = Process()
        process.executableURL = Featureload.binary
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        var killed = false
        while process.isRunning, Date() < deadline {
            if FileManager.default.fileExists(atPath: journal), let opened = try? ApplyJournal.open(at: journal), (try? when(opened)) == true {
                kill(process.processIdentifier, SIGKILL)
                killed = true
                break
            }
            usleep(5_000)
        }
        process.waitUntilExit()
        let opened = try? ApplyJournal.open(at: journal)
        let inDoubt = (try? opened?.openBatches().filter { $0.state == .sending }.count) ?? 0
        return (killed, try? opened?.counts(), inDoubt ?? 0)
    }

    @Test("kill -9 while planning, mid-run twice and while resuming: the last resume finds every park once", .timeLimit(.minutes(4)))
    func killAndResume() async throws {
        let directory = try TemporaryDirectory()
        let count = 6_000
        let input = directory.path + "/many.geojson"
        try Self.geojson(count, prefix: "Killed").write(toFile: input, atomically: true, encoding: .utf8)
        let data = directory.path + "/many.sqlite"
        let journal = directory.path + "/many.journal"
        let start = [
            "apply", input, "--to", "local", "--layer", "0", "--data", data, "--journal", journal, "--batch-size", "50", "--concurrency", "4",
            "--rate", "3000", "--quiet",
        ]
        let resume = ["apply", "--resume", journal, "--quiet"]
        var seen: [String] = []
        var inDoubt = 0

        // 1. While planning: the journal has edits but the plan is not complete.
        let planning = try Self.killed(start, journal: journal) { journal in try journal.counts().planned > 0 && !journal.isPlanned() }
        let planFinished = (try? ApplyJournal.open(at: journal).isPlanned()) ?? false
        seen.append(
            "planning: killed \(planning.killed), \(planning.counts.map { "\($0.planned) planned, \($0.applied) applied" } ?? "no journal"), plan finished \(planFinished)"
        )
        if !FileManager.default.fileExists(atPath: journal) {
            // Killed before the journal was made: start again.
            _ = try Self.killed(start, journal: journal) { _ in false }
        }
        // 2. and 3. Mid-run, at about a quarter and at about two thirds.
        for fraction in [0.25, 0.66] {
            let run = try Self.killed(resume, journal: journal) { journal in try journal.counts().applied >= Int(Double(count) * fraction) }
            seen.append(
                "mid-run \(fraction): killed \(run.killed), \(run.counts.map { "\($0.applied) applied" } ?? ""), \(run.inDoubt) batches in doubt")
            inDoubt += run.inDoubt
        }
        // verify on the unfinished job: what the journal settled holds; the rest is in doubt or not sent, and
        // --resume settles it. Not a mismatch (1), an unfinished job (3).
        let unfinished = try await Featureload.run(["verify", journal])
        #expect(unfinished.status == 3, "\(unfinished.output)\(unfinished.errorOutput)")
        #expect(unfinished.output.contains("in doubt or not sent") && unfinished.output.contains("already in the service"), "\(unfinished.output)")
        #expect(
            unfinished.output.contains("INCOMPLETE: `featureload apply --resume`") && !unfinished.output.contains("MISMATCH"), "\(unfinished.output)")
        seen.append("verify mid-job: \(unfinished.output.trimmingCharacters(in: .whitespacesAndNewlines))")
        // 4. While resuming: once the new process has applied its first edits.
        let appliedBefore = try ApplyJournal.open(at: journal).counts().applied
        let resuming = try Self.killed(resume, journal: journal) { journal in try journal.counts().applied > appliedBefore }
        seen.append("resuming: killed \(resuming.killed) after \(appliedBefore) applied")

        let changed = try await Featureload.run(["apply", "--resume", journal, "--batch-size", "10", "--kind-field", "op"])
        #expect(changed.status == 64 && changed.errorOutput.contains("leave out --batch-size, --kind-field"), "\(changed.errorOutput)")

        // The pace may change on resume, and the journal keeps it.
        let reportPath = directory.path + "/resume-report"
        let final = try await Featureload.run([
            "apply", "--resume", journal, "--verify", "--concurrency", "6", "--rate", "5000", "--report", reportPath + ".json",
        ])
        #expect(final.status == 0, "\(seen)\n\(final.output)\(final.errorOutput)")
        // The report keeps the whole job's counts and this run's share apart: the speed is this run's only.
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath + ".json"))) as? [String: Any]
        let thisRun = report?["thisRun"] as? [String: Any]
        #expect(report?["applied"] as? Int == count, "\(String(describing: report))")
        let appliedNow = thisRun?["applied"] as? Int ?? -1
        #expect(appliedNow >= 0 && appliedNow < count, "the last resume applied only what was left: \(String(describing: thisRun))")
        #expect(thisRun?["inDoubtFoundApplied"] is Int && thisRun?["alreadyThere"] is Int, "\(String(describing: thisRun))")
        let markdown = try JSONDecoder().decode(ApplyReport.self, from: Data(contentsOf: URL(fileURLWithPath: reportPath + ".json"))).markdown
        #expect(markdown.contains("This run (a resumed job: its own share):") && markdown.contains("| \(appliedNow) |"), "\(markdown)")
        let paced = try ApplyJournal.open(at: journal).header().settings
        #expect(paced.concurrency == 6 && paced.rate == 5000 && paced.batchSize == 50, "\(paced)")
        #expect(final.output.contains("applied \(count) of \(count) edits ("), "\(final.output)")
        #expect(final.output.contains(" in this run)"), "the journal's totals, with what this run applied itself: \(final.output)")
        #expect(final.output.contains("verify: \(count) of \(count) applied adds found once"))
        let parks = try await Self.parks(in: data, prefix: "Killed")
        #expect(parks.count == count, "every park once: \(parks.count) rows for \(count) parks (\(seen))")
        #expect(parks.names.count == count && parks.names.values.allSatisfy { $0 == 1 })
        #expect(seen.filter { $0.contains("killed true") }.count == 4, "every kill landed: \(seen)")
        #expect(seen.first?.contains("plan finished false") == true, "the first kill landed while planning: \(seen)")
        #expect(inDoubt > 0, "the mid-run kills left batches in doubt, which the resumes settled: \(seen)")
        // The figures a run gives (each kill point, what the journal held then), for the record.
        print(
            "kill -9 and resume, \(count) parks: \(seen.joined(separator: "; ")); last resume: \(final.output.split(separator: "\n").filter { $0.hasPrefix("applied") || $0.hasPrefix("verify") }.joined(separator: "; "))"
        )
    }

    @Test(
        "--skip-invalid sends while it plans; kill -9 with batches sent and the plan unfinished, twice: the resumes plan again where they were and find every park once",
        .timeLimit(.minutes(4)))
    func killWhileStreaming() async throws {
        let directory = try TemporaryDirectory()
        let count = 40_000
        let invalid: Set<Int> = [17, 20_001]
        let input = directory.path + "/streamed.geojson"
        try Self.geojson(count, invalid: invalid, prefix: "Streamed").write(toFile: input, atomically: true, encoding: .utf8)
        let data = directory.path + "/streamed.sqlite"
        let journal = directory.path + "/streamed.journal"
        let start = [
            "apply", input, "--to", "local", "--layer", "0", "--data", data, "--journal", journal, "--batch-size", "100", "--concurrency", "4",
            "--skip-invalid", "--rejects", directory.path + "/rejects.geojson", "--quiet",
        ]
        let resume = ["apply", "--resume", journal, "--quiet"]
        var seen: [String] = []
        // Killed once this process has applied edits while the plan is still being made: the first run, then a resume.
        var applied = 0
        for arguments in [start, resume] {
            let before = applied
            let run = try Self.killed(arguments, journal: journal) { journal in
                let counts = try journal.counts()
                applied = counts.applied
                return try counts.applied > before && !journal.isPlanned()
            }
            let planned = (try? ApplyJournal.open(at: journal).isPlanned()) ?? false
            seen.append(
                "killed \(run.killed) with \(applied) applied, \(run.counts?.planned ?? 0) planned, plan finished \(planned), \(run.inDoubt) in doubt"
            )
        }
        let final = try await Featureload.run(["apply", "--resume", journal, "--verify"])
        let valid = count - invalid.count
        #expect(final.status == 1, "the two invalid records make it exit 1: \(seen)\n\(final.output)\(final.errorOutput)")
        #expect(final.output.contains("applied \(valid) of \(valid) edits"), "\(seen)\n\(final.output)")
        #expect(final.output.contains("verify: \(valid) of \(valid) applied adds found once"), "\(final.output)")
        #expect(final.output.contains("rejects: 2 records"), "\(final.output)")
        let parks = try await Self.parks(in: data, prefix: "Streamed")
        #expect(parks.count == valid && parks.names.values.allSatisfy { $0 == 1 }, "every valid park once: \(parks.count) rows (\(seen))")
        #expect(seen.filter { $0.hasPrefix("killed true") && $0.contains("plan finished false") }.count == 2, "both kills landed mid-plan: \(seen)")
        print(
            "kill -9 while streaming, \(count) parks: \(seen.joined(separator: "; ")); last resume: \(final.output.split(separator: "\n").filter { $0.hasPrefix("applied") || $0.hasPrefix("verify") }.joined(separator: "; "))"
        )
    }

    /// Twice the signed area of a ring (positive: counter-clockwise with y up).
    static func signedArea(_ ring: [[Double]]) -> Double {
        zip(ring, ring.dropFirst()).reduce(0) { $0 + ($1.0[0] * $1.1[1] - $1.1[0] * $1.0[1]) }
    }

    @Test(
        "GeoJSON polygons with holes and multipolygons, and lines, round-trip through the service: rings in ArcGIS order, every vertex back",
        .timeLimit(.minutes(2)))
    func polygonsRoundTrip() async throws {
        let directory = try TemporaryDirectory()
        // RFC 7946 order: exteriors counter-clockwise, holes clockwise.
        let outer = "[[-106,39],[-105,39],[-105,40],[-106,40],[-106,39]]"
        let hole = "[[-105.8,39.2],[-105.8,39.8],[-105.2,39.8],[-105.2,39.2],[-105.8,39.2]]"
        let second = "[[-104,39],[-103.5,39],[-103.5,39.5],[-104,39.5],[-104,39]]"
        let input = directory.path + "/boundaries.geojson"
        try """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","geometry":{"type":"Polygon","coordinates":[\(outer),\(hole)]},"properties":{"name":"Holey","unit_code":"HOLE","acres":1.5}},
        {"type":"Feature","geometry":{"type":"MultiPolygon","coordinates":[[\(outer),\(hole)],[\(second)]]},"properties":{"name":"Multi","acres":2}}
        ]}
        """.write(toFile: input, atomically: true, encoding: .utf8)
        let trails = directory.path + "/trails.geojsonl"
        try
            #"{"type":"Feature","geometry":{"type":"MultiLineString","coordinates":[[[-105,39],[-104.5,39.5]],[[-104,39],[-103,39.2],[-102,39]]]},"properties":{"name":"Two parts"}}"#
            .write(toFile: trails, atomically: true, encoding: .utf8)
        let data = directory.path + "/boundaries.sqlite"
        for (file, layer) in [(input, "Park Boundaries"), (trails, "1")] {
            let result = try await Featureload.run([
                "apply", file, "--to", "local", "--dataset", "parkboundaries", "--layer", layer, "--data", data, "--journal", file + ".journal",
                "--verify",
            ])
            #expect(result.status == 0, "\(result.output)\(result.errorOutput)")
        }
        try await withTestServer(dataset: "parkboundaries", databasePath: data) { server in
            try await withCurlTransport { transport in
                let layer = FeatureLayerClient(url: server.serviceURL + "/0", transport: transport)
                let features = try await layer.query(
                    FeatureQuery(whereClause: "name IN ('Holey', 'Multi')", outFields: ["name"], orderByFields: "name"))
                #expect(features.features.count == 2)
                for feature in features.features {
                    guard case .polygon(let rings, _) = feature.geometry else {
                        Issue.record("no polygon: \(String(describing: feature.geometry))")
                        continue
                    }
                    let isMulti = feature[attribute: "name"]?.stringValue == "Multi"
                    #expect(rings.count == (isMulti ? 3 : 2))
                    #expect(Self.signedArea(rings[0]) < 0, "the exterior is clockwise, as ArcGIS wants")
                    #expect(Self.signedArea(rings[1]) > 0, "the hole is counter-clockwise")
                    #expect(Set(rings[1].map { "\($0[0]),\($0[1])" }) == ["-105.8,39.2", "-105.8,39.8", "-105.2,39.8", "-105.2,39.2"])
                    #expect(rings.allSatisfy { $0.first == $0.last }, "rings stay closed")
                    if isMulti { #expect(Self.signedArea(rings[2]) < 0) }
                }
                let trail = try await FeatureLayerClient(url: server.serviceURL + "/1", transport: transport)
                    .query(FeatureQuery(whereClause: "name = 'Two parts'", outFields: ["name"]))
                guard case .polyline(let paths, _)? = trail.features.first?.geometry else {
                    Issue.record("no trail")
                    return
                }
                #expect(paths == [[[-105, 39], [-104.5, 39.5]], [[-104, 39], [-103, 39.2], [-102, 39]]])
            }
        }
    }

    @Test("--wait-for-service takes 0 or a duration; anything else is a usage error that says what to write", .timeLimit(.minutes(1)))
    func waitForServiceOption() async throws {
        let result = try await Featureload.run(["apply", "parks.geojson", "--to", "local", "--layer", "0", "--wait-for-service", "soon"])
        #expect(result.status == 64, "\(result.output)\(result.errorOutput)")
        #expect(result.errorOutput.contains("--wait-for-service 'soon' is not a duration; write e.g. 0, 90s, 15m or 2h"), "\(result.errorOutput)")
        let slow = try await Featureload.run(["apply", "parks.geojson", "--to", "local", "--layer", "0", "--rate", "0.001"])
        #expect(slow.status == 64 && slow.errorOutput.contains("--rate must be a number of edits per second, 0.01 or more"), "\(slow.errorOutput)")
        for endless in ["inf", "nan"] {
            let refused = try await Featureload.run(["apply", "parks.geojson", "--to", "local", "--layer", "0", "--rate", endless])
            #expect(refused.status == 64 && refused.errorOutput.contains("leave it out for no limit"), "\(refused.errorOutput)")
        }
        let help = try await Featureload.run(["apply", "--help"])
        #expect(help.output.contains("--wait-for-service <duration>"), "\(help.output)")
    }

    @Test("a CSV --map to a field the layer does not have is one error before anything is read, not one per record", .timeLimit(.minutes(1)))
    func mapToUnknownField() async throws {
        let directory = try TemporaryDirectory()
        let input = directory.path + "/parks.csv"
        try "park_name,st,lon,lat\nA,CA,-120,36\nB,CA,-121,36\nC,NV,-119,37\n".write(toFile: input, atomically: true, encoding: .utf8)
        let common = [
            "apply", input, "--to", "local", "--layer", "0", "--data", directory.path + "/parks.sqlite", "--x", "lon", "--y", "lat", "--dry-run",
        ]
        let typo = try await Featureload.run(common + ["--map", "park_name=nmae,st=state"])
        #expect(typo.status == 2, "\(typo.output)\(typo.errorOutput)")
        #expect(
            typo.errorOutput.contains("--map park_name=nmae: layer 0 (National Parks) has no field 'nmae'; its fields are OBJECTID,"),
            "\(typo.errorOutput)")
        #expect(
            typo.errorOutput.components(separatedBy: "nmae").count == 3 && !typo.output.contains("record"),
            "said once: \(typo.output)\(typo.errorOutput)")
        // The geometry's columns and the layer's keys, whatever the layer calls them, are not fields to check.
        let mapped = try await Featureload.run(common + ["--map", "park_name=NAME,st=state,lon=longitude"])
        #expect(mapped.status == 0 && mapped.output.contains("every edit fits layer 0"), "\(mapped.output)\(mapped.errorOutput)")
        // A column the layer has no field for: every record refused, unless such columns are to be left out.
        let extra = directory.path + "/extra.csv"
        try "name,colour,lon,lat\nA,red,-120,36\nB,blue,-121,36\n".write(toFile: extra, atomically: true, encoding: .utf8)
        let withExtra = [
            "apply", extra, "--to", "local", "--layer", "0", "--data", directory.path + "/parks.sqlite", "--x", "lon", "--y", "lat", "--dry-run",
        ]
        let refused = try await Featureload.run(withExtra)
        #expect(refused.status == 2 && refused.output.contains("no field 'colour'"), "\(refused.output)\(refused.errorOutput)")
        let dropped = try await Featureload.run(withExtra + ["--drop-unknown-fields"])
        #expect(dropped.status == 0 && dropped.output.contains("every edit fits layer 0"), "\(dropped.output)\(dropped.errorOutput)")
    }

    @Test(
        "--to a layer's URL (…/FeatureServer/0, as copied from a browser) names the service and the layer; a --layer that disagrees is a usage error",
        .timeLimit(.minutes(1)))
    func layerURL() async throws {
        let directory = try TemporaryDirectory()
        let input = directory.path + "/parks.csv"
        try "name,lon,lat\nA,-120,36\n".write(toFile: input, atomically: true, encoding: .utf8)
        try await Self.withServe(["--data", directory.path + "/serve.sqlite"]) { url in
            let common = ["apply", input, "--x", "lon", "--y", "lat", "--dry-run"]
            let copied = try await Featureload.run(common + ["--to", url + "/0/"])
            #expect(copied.status == 0 && copied.output.contains("every edit fits layer 0 National Parks"), "\(copied.output)\(copied.errorOutput)")
            let both = try await Featureload.run(common + ["--to", url + "/0", "--layer", "0"])
            #expect(both.status == 0, "\(both.output)\(both.errorOutput)")
            let other = try await Featureload.run(common + ["--to", url + "/0", "--layer", "1"])
            #expect(other.status == 64 && other.errorOutput.contains("names layer 0, and --layer says 1"), "\(other.errorOutput)")
            let json = try await Featureload.run(common + ["--to", url + "/0?f=pjson"])
            #expect(json.status == 0 && json.output.contains("every edit fits layer 0"), "a browser's JSON view: \(json.output)\(json.errorOutput)")
            let token = try await Featureload.run(common + ["--to", url + "?token=secret", "--layer", "0"])
            #expect(
                token.status == 2 && token.errorOutput.contains("the URL carries a token") && !token.errorOutput.contains("secret"),
                "\(token.errorOutput)")
        }
    }

    /// Runs `featureload serve` with `arguments` until `body` returns, handing it the service URL it prints.
    static func withServe<T>(_ arguments: [String], _ body: (String) async throws -> T) async throws -> T {
        let process = Process()
        process.executableURL = Featureload.binary
        process.arguments = ["serve", "--port", "0"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var seen = ""
        let deadline = Date().addingTimeInterval(30)
        while !seen.contains("/FeatureServer\n"), process.isRunning, Date() < deadline {
            seen += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        }
        let url = try #require(
            seen.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }.first { $0.hasSuffix("/FeatureServer") },
            "serve printed no URL: \(seen)")
        return try await body(url)
    }

    @Test(
        "100,000 adds from NDJSON into a separate serve under 10 % 503s, 5 % 429s with Retry-After, 1 % drops before and after commit and 1 % per-edit failures: every applied add there once, every rejected one in the rejects file",
        .timeLimit(.minutes(5)))
    func hundredThousandUnderFaults() async throws {
        let directory = try TemporaryDirectory()
        let count = 100_000
        let input = directory.path + "/bulk.geojsonl"
        var lines = ""
        lines.reserveCapacity(count * 140)
        for index in 0..<count {
            lines +=
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(-120 + Double(index % 1000) * 0.001),\#(36 + Double(index / 1000) * 0.001)]},"properties":{"name":"Bulk \#(index)","state":"CA","visitors":\#(index)}}"#
                + "\n"
        }
        try lines.write(toFile: input, atomically: true, encoding: .utf8)
        let faults = directory.path + "/faults.json"
        try """
        {"seed": 11, "faults": [
         {"kind": "http503", "rate": 0.10, "operation": "applyEdits"},
         {"kind": "http429", "rate": 0.05, "retryAfter": 1, "operation": "applyEdits"},
         {"kind": "dropBeforeHandler", "rate": 0.01, "operation": "applyEdits"},
         {"kind": "dropAfterCommit", "rate": 0.01, "operation": "applyEdits"},
         {"kind": "editFailure", "rate": 0.01, "operation": "applyEdits"}]}
        """.write(toFile: faults, atomically: true, encoding: .utf8)
        let rejects = directory.path + "/rejects.geojsonl"
        try await Self.withServe(["--data", directory.path + "/serve.sqlite", "--faults", faults]) { url in
            let result = try await Featureload.run([
                "apply", input, "--to", url, "--layer", "0", "--journal", directory.path + "/bulk.journal", "--batch-size", "100", "--concurrency",
                "8",
                "--rejects", rejects, "--verify", "--quiet",
            ])
            #expect(result.status == 1, "some edits were rejected: \(result.output)\(result.errorOutput)")
            let first = result.output
            #expect(first.contains("retries") && !first.contains(" 0 retries"), "the faults were met and retried: \(first)")
            // No batch fails for these faults: a batch whose every attempt met a 503, a 429 or a dropped connection
            // waits for the service and goes again. Should one fail, the reasons file says why.
            if !result.output.contains(", failed 0 ") {
                let reasons = (try? String(contentsOfFile: rejects + ".reasons.tsv", encoding: .utf8)) ?? ""
                let failed = reasons.split(separator: "\n").filter { $0.contains("\tfailed\t") }.prefix(3).joined(separator: "\n")
                Issue.record("failed edits: \(result.output)\n\(failed)")
            }
            let summary = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("applied ") }, "\(result.output)")
            let numbers = summary.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            let (applied, total, rejected, failed) = (numbers[0], numbers[1], numbers[2], numbers[3])
            #expect(total == count && applied + rejected == count && failed == 0, "\(summary)")
            #expect(rejected > 500 && rejected < 1_500, "about 1 % per-edit failures: \(summary)")
            #expect(
                result.output.contains(
                    "verify: \(applied) of \(applied) applied adds found once; \(rejected) of \(rejected) adds that did not apply absent: ok"))
            let rejectedLines = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
            #expect(rejectedLines.count == rejected, "every rejected add is in the rejects file")
            let reasons = try String(contentsOfFile: rejects + ".reasons.tsv", encoding: .utf8).split(separator: "\n").dropFirst()
            #expect(reasons.count == rejected && reasons.allSatisfy { $0.split(separator: "\t")[3] == "1017" }, "each with the service's code")
            let held = try await withCurlTransport { transport in
                try await FeatureLayerClient(url: url + "/0", transport: transport).count(where: "name LIKE 'Bulk %'")
            }
            #expect(held == applied, "the service holds exactly the applied adds")
        }
    }
}
