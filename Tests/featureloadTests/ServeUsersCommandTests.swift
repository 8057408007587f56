import FeatureloadTestSupport
import Foundation
import Testing

/// `featureload serve --users`, through the built binary: a users file nobody could sign in with stops serve before
/// it listens, naming the file and the line.
@Suite(.serialized) struct ServeUsersCommandTests {
    @Test("a users file whose only user has a blank password stops serve before it listens, naming the line", .timeLimit(.minutes(1)))
    func blankPassword() async throws {
        let directory = try TemporaryDirectory()
        let users = directory.path + "/users.yaml"
        try "users:\n  - username: qa\n    password: ''\n".write(toFile: users, atomically: true, encoding: .utf8)
        // The dataset is missing too, so a serve that accepted the users file would stop there, not listen for ever.
        let result = try await Featureload.run(["serve", "--users", users, "--dataset", "/nonexistent/x.json"])
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("cannot use users file \(users): line 2: the password of 'qa' is blank"), "\(result.errorOutput)")
        #expect(!result.output.contains("listening on"))
    }
}
