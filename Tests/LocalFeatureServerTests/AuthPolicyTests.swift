import Foundation
import Logging
import Testing

@testable import LocalFeatureServer

/// Token security decisions without I/O: which paths need a token, where it is read from, verdicts and lifetimes,
/// and the users file.
@Suite struct AuthPolicyTests {
    @Test("paths: rest info and the token service are public, everything else needs a token")
    func access() {
        #expect(AuthPolicy.access("/arcgis/rest/info") == .restInfo)
        #expect(AuthPolicy.access("/arcgis/info/") == .restInfo)
        #expect(AuthPolicy.access("/arcgis/tokens/generateToken") == .generateToken)
        #expect(AuthPolicy.access("/arcgis/sharing/rest/generateToken") == .generateToken)
        #expect(AuthPolicy.access("/arcgis/tokens") == .open)
        #expect(AuthPolicy.access("/arcgis/rest/services") == .protected)
        #expect(AuthPolicy.access("/arcgis/rest/services/parks/FeatureServer/0/query") == .protected)
        #expect(AuthPolicy.access("/arcgis/admin/faults") == .protected)
        #expect(AuthPolicy.access("/arcgis/rest/%69nfo") == .restInfo)
    }

    @Test("bearer tokens from X-Esri-Authorization first, then Authorization")
    func bearer() {
        #expect(AuthPolicy.bearerToken(esriAuthorization: "Bearer abc", authorization: "Bearer other") == "abc")
        #expect(AuthPolicy.bearerToken(esriAuthorization: nil, authorization: "bearer  xyz ") == "xyz")
        #expect(AuthPolicy.bearerToken(esriAuthorization: "Basic abc", authorization: nil) == nil)
        #expect(AuthPolicy.bearerToken(esriAuthorization: "Bearer ", authorization: nil) == nil)
    }

    @Test("verdicts: missing 499, unknown and expired 498, valid until the expiry instant")
    func verdicts() {
        let grant = TokenService.Grant(username: "qa", expires: 1_000)
        #expect(TokenService.evaluate(token: nil, grant: nil, now: 0) == .missing)
        #expect(TokenService.evaluate(token: "", grant: nil, now: 0) == .missing)
        #expect(TokenService.evaluate(token: "t", grant: nil, now: 0) == .unknown)
        #expect(TokenService.evaluate(token: "t", grant: grant, now: 999) == .valid(username: "qa"))
        #expect(TokenService.evaluate(token: "t", grant: grant, now: 1_000) == .expired)
    }

    @Test("lifetimes default to 60 minutes and are capped")
    func lifetime() {
        let settings = LocalFeatureServerConfiguration.Auth(maximumExpirationMinutes: 120)
        #expect(TokenService.lifetime(requested: nil, settings: settings) == 60)
        #expect(TokenService.lifetime(requested: 5, settings: settings) == 5)
        #expect(TokenService.lifetime(requested: 100_000, settings: settings) == 120)
        #expect(TokenService.lifetime(requested: -3, settings: settings) == 1)
    }

    @Test("users files: YAML list, flat YAML, JSON; passwords compared exactly and never shown")
    func usersFiles() throws {
        let list = try UserDirectory.parse(
            "# QA accounts\nusers:\n  - username: qa\n    password: \"pa ss#1\"\n  - username: 'ed'\n    password: x\n")
        #expect(list == ["qa": "pa ss#1", "ed": "x"])
        #expect(try UserDirectory.parse("qa: secret\nother: 'two'\n") == ["qa": "secret", "other": "two"])
        #expect(try UserDirectory.parse(#"{"users":[{"username":"qa","password":"p"}]}"#) == ["qa": "p"])
        #expect(try UserDirectory.parse(#"{"qa":"p"}"#) == ["qa": "p"])
        let directory = UserDirectory(list)
        #expect(directory.verify(username: "qa", password: "pa ss#1"))
        #expect(!directory.verify(username: "qa", password: "pa ss#"))
        #expect(!directory.verify(username: "qa", password: "pa ss#12"))
        #expect(!directory.verify(username: "nobody", password: "x"))
        #expect(directory.description == "2 users" && !"\(directory)".contains("pa ss"))
        for bad in [
            "users:\n  - username: qa\n", "users:\n  - username: qa\n    password: a\n  - username: qa\n    password: b\n", "just words",
            #"{"users": 3}"#,
        ] {
            #expect(throws: UsersFileProblem.self, "\(bad)") { try UserDirectory.parse(bad) }
        }
    }

    @Test("a users file that is missing or malformed names the file and the line, without the password")
    func usersFileErrors() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("users.yaml")
        try "users:\n  - username: qa\n    secret: hunter2\n".write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try UserDirectory(contentsOfFile: path)
            Issue.record("accepted a malformed users file")
        } catch {
            #expect(error.isInvalidUsers)
            #expect(error.description.contains(path) && error.description.contains("line 3") && !error.description.contains("hunter2"))
        }
        #expect(throws: LocalFeatureServerError.self) { try UserDirectory(contentsOfFile: directory.path("missing.yaml")) }
    }

    @Test(
        "a users file naming a user who could never sign in is refused with its line or entry",
        arguments: [
            ("users:\n  - username: qa\n    password: \"\"\n", "line 2: the password of 'qa' is blank"),
            ("qa: s3cret\nguest:\n", "line 2: the password of 'guest' is blank"),
            ("qa: '   '\n", "line 1: the password of 'qa' is blank"),
            ("users: []\n", "line 1: 'users:' takes no value"),
            (#"{"users":[{"username":"qa","password":"x"},{"username":" ","password":"y"}]}"#, "users[1]: the username is blank"),
            (#"{"qa":""}"#, "'qa': the password of 'qa' is blank"),
        ])
    func unusableUsers(text: String, problem: String) {
        #expect {
            try UserDirectory.parse(text)
        } throws: { error in
            (error as? UsersFileProblem)?.reason.hasPrefix(problem) == true
        }
    }

    @Test("a server whose users nobody could sign in as refuses to start, before it listens", .timeLimit(.minutes(1)))
    func noUsableUserAtStart() async throws {
        for users in [UserDirectory([:]), UserDirectory(["qa": "", "ed": " "])] {
            var configuration = LocalFeatureServerConfiguration()
            configuration.auth = .init(users: users)
            let error = await #expect(throws: LocalFeatureServerError.self) {
                try await withLocalFeatureServer(configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })) { _ in
                    Issue.record("the server listened with \(users)")
                }
            }
            #expect(error?.isInvalidUsers == true)
            #expect(error?.description.contains("nobody could sign in") == true, "\(String(describing: error))")
            #expect(error?.description.contains("--users") == true)
        }
        var usable = LocalFeatureServerConfiguration()
        usable.auth = .init(users: UserDirectory(["qa": "s3cret", "blank": ""]))
        try await withLocalFeatureServer(usable, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })) { endpoint in
            #expect(endpoint.port > 0, "one user who can sign in is enough")
        }
    }
}
