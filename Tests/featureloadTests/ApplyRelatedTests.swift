import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

/// `apply --related --attachments`: parents, their related records and their photos from one input arrive together or
/// not at all, against a separate `serve` that fails requests and edits.
@Suite(.serialized) struct ApplyRelatedTests {
    /// A service-level Esri JSON input of `count` service requests, request `i` with `i % 4` comments keyed to its
    /// GlobalID; photos for every third request (`R0003.jpg`), a large one besides for every thirtieth
    /// (`R0030_scan.bin`, sent through uploads) and a folder of two for every fortieth (`R0040/`).
    struct Input {
        var path: String
        var photos: String
        /// Each request's GlobalID, its comments' texts and how many files it has.
        var groups: [(globalId: String, comments: [String], files: Int)]
    }

    static func makeInput(in directory: String, count: Int) throws -> Input {
        let photos = directory + "/photos"
        try FileManager.default.createDirectory(atPath: photos + "/R0000", withIntermediateDirectories: true)
        var generator = SplitMix64(seed: 42)
        var parents: [String] = []
        var children: [String] = []
        var groups: [(globalId: String, comments: [String], files: Int)] = []
        for index in 0..<count {
            let globalId = GlobalID.make(using: &generator)
            let ref = String(format: "R%04d", index)
            parents.append(
                #"{"attributes":{"GlobalID":"\#(globalId)","request_type":"Pothole","status":"Open","priority":\#(index % 5 + 1),"details":"deep \#(index)","ref":"\#(ref)"},"geometry":{"x":\#(-118 + Double(index) * 0.001),"y":34.05}}"#
            )
            var comments: [String] = []
            for offset in 0..<(index % 4) {
                let text = "deep \(index) comment \(offset)"
                comments.append(text)
                children.append(#"{"attributes":{"request_guid":"\#(globalId)","comment":"\#(text)","author":"qa"}}"#)
            }
            var files = 0
            if index % 3 == 0 {
                try Data(repeating: UInt8(index % 251), count: 1_500).write(to: URL(fileURLWithPath: "\(photos)/\(ref).jpg"))
                files += 1
            }
            if index % 30 == 0 {
                try Data(repeating: 7, count: 120_000).write(to: URL(fileURLWithPath: "\(photos)/\(ref)_scan.bin"))
                files += 1
            }
            if index % 40 == 0 {
                try FileManager.default.createDirectory(atPath: "\(photos)/\(ref)", withIntermediateDirectories: true)
                for name in ["a.png", "b.png"] { try Data(repeating: 1, count: 800).write(to: URL(fileURLWithPath: "\(photos)/\(ref)/\(name)")) }
                files += 2
            }
            groups.append((globalId, comments, files))
        }
        let text = #"[{"id":0,"adds":["# + parents.joined(separator: ",\n") + #"]},{"id":1,"adds":["# + children.joined(separator: ",\n") + "]}]"
        let path = directory + "/requests.json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return Input(path: path, photos: photos, groups: groups)
    }

    /// What the service holds for `input`: per request, whether it is there, its comments and its attachment count.
    static func held(_ input: Input, at url: String) async throws -> [(present: Bool, comments: [String], files: Int)] {
        try await withCurlTransport { transport in
            let requests = FeatureLayerClient(url: url + "/0", transport: transport)
            let comments = FeatureLayerClient(url: url + "/1", transport: transport)
            let parents = try await requests.queryAll(
                FeatureQuery(whereClause: "details LIKE 'deep %'", outFields: ["OBJECTID", "GlobalID"], returnGeometry: false), pageSize: 2000)
            var objectIds: [String: Int64] = [:]
            for parent in parents {
                if let id = parent[attribute: "GlobalID"]?.stringValue.flatMap(GlobalID.normalized), let oid = parent[attribute: "OBJECTID"]?.intValue
                {
                    objectIds[id] = oid
                }
            }
            #expect(objectIds.count == parents.count, "no request is there twice")
            let children = try await comments.queryAll(
                FeatureQuery(whereClause: "comment LIKE 'deep %'", outFields: ["request_guid", "comment"], returnGeometry: false), pageSize: 2000)
            var byParent: [String: [String]] = [:]
            for child in children {
                let parent = child[attribute: "request_guid"]?.stringValue.flatMap(GlobalID.normalized) ?? "none"
                byParent[parent, default: []].append(child[attribute: "comment"]?.stringValue ?? "")
            }
            var files: [Int64: Int] = [:]
            if !objectIds.isEmpty {
                let groups = try await requests.queryAttachments(objectIds: Array(objectIds.values))
                for group in groups.attachmentGroups { files[group.parentObjectId] = group.attachmentInfos?.count ?? 0 }
            }
            return input.groups.map { group in
                let objectId = objectIds[group.globalId]
                return (objectId != nil, (byParent[group.globalId] ?? []).sorted(), objectId.flatMap { files[$0] } ?? 0)
            }
        }
    }

    @Test(
        "300 requests with 0–3 comments each and photos (small inline, large through uploads) under 503s, 429s, drops before and after commit and 20 % per-edit failures: each request arrives with all its comments and photos or not at all, and every record of a refused group is in the rejects file",
        .timeLimit(.minutes(4)))
    func deepInsertUnderFaults() async throws {
        let directory = try TemporaryDirectory()
        let input = try Self.makeInput(in: directory.path, count: 300)
        let faults = directory.path + "/faults.json"
        try """
        {"seed": 5, "faults": [
         {"kind": "http503", "rate": 0.10, "operation": "applyEdits"},
         {"kind": "http429", "rate": 0.05, "retryAfter": 1, "operation": "applyEdits"},
         {"kind": "dropBeforeHandler", "rate": 0.03, "operation": "applyEdits"},
         {"kind": "dropAfterCommit", "rate": 0.03, "operation": "applyEdits"},
         {"kind": "editFailure", "rate": 0.2, "operation": "applyEdits"}]}
        """.write(toFile: faults, atomically: true, encoding: .utf8)
        let rejects = directory.path + "/rejects.json"
        try await ApplyCommandTests.withServe(["--dataset", "servicerequests", "--data", directory.path + "/serve.sqlite", "--faults", faults]) {
            url in
            let result = try await Featureload.run([
                "apply", input.path, "--to", url, "--layer", "0", "--related", "--attachments", input.photos, "--attachment-key", "ref",
                "--upload-threshold", "100000", "--journal", directory.path + "/requests.journal", "--batch-size", "40", "--concurrency", "4",
                "--rejects", rejects, "--verify", "--quiet",
            ])
            let expectedEdits = input.groups.reduce(0) { $0 + 1 + $1.comments.count }
            let summary = try #require(
                result.output.split(separator: "\n").first { $0.hasPrefix("applied ") }, "\(result.output)\(result.errorOutput)")
            let numbers = summary.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            let (applied, total, rejected, failed) = (numbers[0], numbers[1], numbers[2], numbers[3])
            #expect(total == expectedEdits && applied + rejected == total && failed == 0, "\(summary)")
            #expect(rejected > 0, "with 20 % per-edit failures some groups are refused: \(summary)")
            #expect(result.status == 1, "refused groups make the run fail: \(result.output)")
            #expect(
                result.output.contains(
                    "verify: \(applied) of \(applied) applied adds found once; \(rejected) of \(rejected) adds that did not apply absent: ok"),
                "\(result.output)")

            let held = try await Self.held(input, at: url)
            var missing = 0
            for (group, found) in zip(input.groups, held) {
                if found.present {
                    #expect(found.comments == group.comments.sorted(), "request \(group.globalId) arrived with every comment")
                    #expect(found.files == group.files, "request \(group.globalId) arrived with its \(group.files) files")
                } else {
                    missing += 1
                    #expect(found.comments.isEmpty && found.files == 0, "nothing of refused request \(group.globalId) arrived")
                }
            }
            let missingEdits = zip(input.groups, held).filter { !$0.1.present }.reduce(0) { $0 + 1 + $1.0.comments.count }
            #expect(missing > 0 && missingEdits == rejected, "the refused groups are the rejected records")

            // The rejects file is service-level Esri JSON again: every refused request and comment, ready to re-apply.
            guard case .array(let layers) = try JSONReader.parse(String(contentsOfFile: rejects, encoding: .utf8)) else {
                Issue.record("\(rejects) is not service-level Esri JSON")
                return
            }
            let count = layers.reduce(0) { total, layer in
                guard case .object(let members) = layer, case .array(let adds)? = members["adds"] else { return total }
                return total + adds.count
            }
            #expect(count == rejected, "every record of a refused group is in \(rejects)")
            let reasons = try String(contentsOfFile: rejects + ".reasons.tsv", encoding: .utf8)
            #expect(reasons.contains("arrives whole or not at all"), "\(reasons.prefix(500))")
        }
    }

    @Test(
        "when the photos come after the records, applying the input again attaches them to the requests already there, once", .timeLimit(.minutes(2)))
    func filesForFeaturesAlreadyThere() async throws {
        let directory = try TemporaryDirectory()
        let input = try Self.makeInput(in: directory.path, count: 40)
        let files = input.groups.reduce(0) { $0 + $1.files }
        let empty = directory.path + "/no-photos-yet"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try await ApplyCommandTests.withServe(["--dataset", "servicerequests", "--data", directory.path + "/serve.sqlite"]) { url in
            let first = try await Featureload.run([
                "apply", input.path, "--to", url, "--layer", "0", "--related", "--attachments", empty, "--attachment-key", "ref",
                "--journal", directory.path + "/first.journal", "--quiet",
            ])
            #expect(first.status == 0, "\(first.output)\(first.errorOutput)")
            for attempt in ["second", "third"] {
                let again = try await Featureload.run([
                    "apply", input.path, "--to", url, "--layer", "0", "--related", "--attachments", input.photos, "--attachment-key", "ref",
                    "--upload-threshold", "100000", "--journal", directory.path + "/\(attempt).journal", "--quiet",
                ])
                #expect(again.status == 0, "\(again.output)\(again.errorOutput)")
                #expect(again.output.contains("files: \(files) of \(files) attached"), "\(attempt) run: \(again.output)")
            }
            let held = try await Self.held(input, at: url)
            for (group, found) in zip(input.groups, held) {
                #expect(found.present && found.comments == group.comments.sorted(), "request \(group.globalId) is there once with its comments")
                #expect(found.files == group.files, "request \(group.globalId) has its \(group.files) files once")
            }
        }
    }
}
