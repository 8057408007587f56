import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

// BEGIN RelateFeatures example
/// Relates a new species to a park, validates, applies, and reads the park's species back.
func relateSpeciesToPark(serviceURL: String, transport: any HTTPTransport) async throws -> [String] {
    let service = FeatureService(url: serviceURL, transport: transport)
    let parks = try await service.table(id: 0)
    let species = try await service.table(id: 1)

    // The park, and a new species seen there.
    guard let zion = try await parks.queryAllFeatures(QueryParameters(whereClause: "name = 'Zion'")).first else { return [] }
    var condor = species.makeFeature(attributes: ["common_name": "California Condor", "status": "CR", "observed": 12])

    // Relate in memory, validate, then apply.
    condor = try await species.relate(condor, to: zion, relationshipId: 0)
    await species.add(condor)
    let relationshipProblems = try await species.validateRelationshipConstraints(for: condor, considering: [parks])
    let domainProblems = species.validateDomains(for: condor)
    guard relationshipProblems.isEmpty, domainProblems.isEmpty else {
        return relationshipProblems.map(\.description) + domainProblems.map(\.description)
    }
    let results = try await species.applyEdits()
    guard results.allSatisfy({ $0.isApplied }) else { return results.compactMap { $0.error?.description } }

    // The related records, read back from the service.
    let related = try await parks.queryRelated(to: zion, RelatedQueryParameters(relationshipId: 0, orderByFields: ["common_name"]))
    return related.compactMap { $0[attribute: "common_name"]?.stringValue }
}
// END RelateFeatures example

/// The example program of the RelateFeatures article: compiled here, run against the local service, and kept
/// identical to the article's code.
@Suite struct RelateFeaturesExampleTests {
    @Test("the example relates a species to a park, validates, applies and reads the related records back", .timeLimit(.minutes(1)))
    func runsAgainstTheLocalService() async throws {
        let names = try await withTestServer(dataset: "parks") { server in
            try await withCurlTransport { transport in try await relateSpeciesToPark(serviceURL: server.serviceURL, transport: transport) }
        }
        #expect(names == ["California Condor", "Mexican Spotted Owl", "Zion Snail"])
    }

    @Test("the article's swift block is the code compiled here")
    func articleMatchesTest() throws {
        let testsFile = URL(fileURLWithPath: #filePath)
        let root = testsFile.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/FeatureServiceClient/Documentation.docc/RelateFeatures.md"), encoding: .utf8)
        let source = try String(contentsOf: testsFile, encoding: .utf8)
        let compiled = try #require(Self.between("// BEGIN RelateFeatures example\n", "// END RelateFeatures example", in: source))
        let documented = try #require(Self.between("<!-- example: relateSpeciesToPark -->\n```swift\n", "```", in: article))
        #expect(documented == compiled)
    }

    /// The text between the first `start` and the next `end`.
    static func between(_ start: String, _ end: String, in text: String) -> String? {
        guard let open = text.range(of: start), let close = text.range(of: end, range: open.upperBound..<text.endIndex) else { return nil }
        return String(text[open.upperBound..<close.lowerBound])
    }
}
