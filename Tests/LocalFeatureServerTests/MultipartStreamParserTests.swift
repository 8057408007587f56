import FeatureModel
import NIOCore
import Testing

@testable import LocalFeatureServer

/// The streaming multipart parser on its own: framing edge cases, and the same result for any chunking of a body.
@Suite struct MultipartStreamParserTests {
    /// What a body parsed to, with each part's body chunks joined, so that any two chunkings compare equal.
    struct Outcome: Equatable, CustomStringConvertible {
        enum Piece: Equatable {
            case header(String, String)
            case body([UInt8])
            case partEnd
        }

        var pieces: [Piece] = []
        var failure: MultipartStreamParser.Failure?
        var isClosed = false

        var description: String {
            let text = pieces.map { piece in
                switch piece {
                case .header(let name, let value): "\(name): \(value)"
                case .body(let bytes): "body \(String(decoding: bytes, as: UTF8.self).debugDescription)"
                case .partEnd: "end"
                }
            }
            return "\(text) failure: \(String(describing: failure)) closed: \(isClosed)"
        }

        /// The body of each part, in order.
        var bodies: [[UInt8]] {
            var bodies: [[UInt8]] = []
            var current: [UInt8] = []
            for piece in pieces {
                if case .body(let bytes) = piece { current += bytes }
                if case .partEnd = piece {
                    bodies.append(current)
                    current = []
                }
            }
            return bodies
        }
    }

    /// Parses `body` fed in chunks that end at `cuts` (offsets into `body`).
    static func parse(_ body: [UInt8], boundary: String, cuts: [Int] = [], maximumHeaderSize: Int = .max) -> Outcome {
        var parser = MultipartStreamParser(boundary: boundary, maximumHeaderSize: maximumHeaderSize)
        var outcome = Outcome()
        var start = 0
        for end in cuts.filter({ $0 > 0 && $0 < body.count }).sorted() + [body.count] {
            var chunk = ByteBuffer(bytes: body[start..<end])
            start = end
            do {
                while let event = try parser.next(in: &chunk) {
                    switch event {
                    case .header(let name, let value): outcome.pieces.append(.header(name, value))
                    case .body(let bytes):
                        #expect(bytes.readableBytes > 0)
                        if case .body(let previous) = outcome.pieces.last {
                            outcome.pieces[outcome.pieces.count - 1] = .body(previous + Array(bytes.readableBytesView))
                        } else {
                            outcome.pieces.append(.body(Array(bytes.readableBytesView)))
                        }
                    case .partEnd: outcome.pieces.append(.partEnd)
                    }
                }
            } catch {
                outcome.failure = error
                break
            }
        }
        outcome.isClosed = parser.isClosed
        return outcome
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static let disposition = "Content-Disposition: form-data; name=\"f\"\r\n"

    @Test("a body with a preamble, two parts and an epilogue")
    func wellFormed() {
        let body = Self.bytes(
            "preamble --x-- line\r\n--b\r\n\(Self.disposition)Content-Type:\t text/plain \r\n\r\njson\r\n--b\r\n\r\n\r\n\r\n--b--\r\nepilogue\r\n--b\r\n"
        )
        let outcome = Self.parse(body, boundary: "b")
        #expect(
            outcome.pieces == [
                .header("Content-Disposition", "form-data; name=\"f\""), .header("Content-Type", "text/plain "), .body(Self.bytes("json")), .partEnd,
                .body(Self.bytes("\r\n")), .partEnd,
            ], "\(outcome)")
        #expect(outcome.isClosed && outcome.failure == nil)
    }

    @Test(
        "part bodies keep CR, LF, dashes and near-delimiters that are not CRLF --boundary",
        arguments: [
            "--b", "x--bound--", "\r\n--", "\r\n--c", "\r\r\n--", "\r\n\r\n--bo", "\r", "\n--bound", "-\r\n-", "\r\n--boun\r\n--bounD", "",
        ])
    func bodyBytes(content: String) {
        let body = Self.bytes("--bound\r\n\(Self.disposition)\r\n\(content)\r\n--bound--")
        let outcome = Self.parse(body, boundary: "bound")
        #expect(outcome.bodies == [Self.bytes(content)], "\(outcome)")
        #expect(outcome.isClosed)
    }

    @Test("boundaries that overlap themselves are found wherever they end")
    func selfOverlappingBoundary() {
        for boundary in ["-", "--", "a-a", "\r\n--", "----featureload42"] {
            for content in ["", "-", "\r\n-", "\r\n--\(boundary.dropLast())", "\r\n---\(boundary)x", "a\r\n\r\n--"] {
                let text = "\r\n\r\n--\(boundary)\r\n\(Self.disposition)\r\n\(content)\r\n--\(boundary)--"
                let body = Self.bytes(text)
                let delimiter = Self.bytes("\r\n--\(boundary)")
                // Only contents that do not hold the delimiter themselves (or with the CRLF before or after them).
                guard (Self.bytes("\r\n" + content) + delimiter).firstRange(of: delimiter)?.lowerBound == content.utf8.count + 2 else { continue }
                let outcome = Self.parse(body, boundary: boundary)
                #expect(
                    outcome.bodies == [Self.bytes(content)] && outcome.isClosed,
                    "\(boundary.debugDescription) \(content.debugDescription): \(outcome)")
            }
        }
    }

    /// A body whose framing is broken: the failure, and the events reported before it.
    struct Broken: Sendable, CustomTestStringConvertible {
        var text: String
        var failure: MultipartStreamParser.Failure
        var before: [Outcome.Piece] = []
        var testDescription: String { text.debugDescription }
    }

    static let broken: [Broken] = [
        Broken(text: "--b--\r\n", failure: .syntax),
        Broken(text: "--b \r\n\r\nv\r\n--b--", failure: .syntax),
        Broken(text: "--b\rx", failure: .syntax),
        Broken(text: "--b\r\nNo Colon\r\n\r\nv\r\n--b--", failure: .syntax),
        Broken(text: "--b\r\n: empty name\r\n\r\nv\r\n--b--", failure: .syntax),
        Broken(text: "--b\r\nA: 1\r\n folded\r\n\r\nv\r\n--b--", failure: .syntax, before: [.header("A", "1")]),
        Broken(text: "--b\r\nA: 1\r\n\tfolded\r\n\r\nv\r\n--b--", failure: .syntax, before: [.header("A", "1")]),
        Broken(text: "--b\r\nA: 1\rB: 2\r\n\r\nv\r\n--b--", failure: .syntax),
        Broken(text: "--b\r\nA: 1\r\n\rv\r\n--b--", failure: .syntax, before: [.header("A", "1")]),
        Broken(text: "--b\r\nA\n: 1\r\n\r\nv\r\n--b--", failure: .syntax),
        Broken(text: "--b\r\nN\u{E4}me: 1\r\n\r\nv\r\n--b--", failure: .nonASCIIHeaderName),
        Broken(text: "--b\r\nA: 1\r\n\u{FF}: 2\r\n\r\nv\r\n--b--", failure: .nonASCIIHeaderName, before: [.header("A", "1")]),
        Broken(text: "--b\r\n\r\nv\r\n--bX\r\n", failure: .syntax, before: [.body(Array("v".utf8)), .partEnd]),
        Broken(text: "--b\r\n\r\nv\r\n--b \r\n", failure: .syntax, before: [.body(Array("v".utf8)), .partEnd]),
        Broken(text: "--b\r\n\r\nv\r\n--b\rX", failure: .syntax, before: [.body(Array("v".utf8)), .partEnd]),
    ]

    @Test("broken framing fails, after reporting what came before it", arguments: Self.broken)
    func brokenFraming(_ broken: Broken) {
        let outcome = Self.parse(Self.bytes(broken.text), boundary: "b")
        #expect(outcome.failure == broken.failure && outcome.pieces == broken.before, "\(outcome)")
        #expect(!outcome.isClosed)
    }

    @Test("a body that stops early or closes with one dash is never closed; data after the closing delimiter is ignored")
    func unclosed() {
        for text in [
            "", "--b", "--b\r\n", "--b\r\nA: 1", "--b\r\n\r\nv", "--b\r\n\r\nv\r\n--b", "--b\r\n\r\nv\r\n--b-", "--b\r\n\r\nv\r\n--b-x--b--",
        ] {
            let outcome = Self.parse(Self.bytes(text), boundary: "b")
            #expect(!outcome.isClosed && outcome.failure == nil, "\(text.debugDescription): \(outcome)")
        }
        let closed = Self.parse(Self.bytes("--b\r\n\r\nv\r\n--b--garbage\r\n--b\r\n\u{FF}: x"), boundary: "b")
        #expect(closed.isClosed && closed.failure == nil && closed.bodies == [Self.bytes("v")])
    }

    @Test("header values: leading blanks dropped, the rest kept; a value that is not UTF-8 is empty")
    func headerValues() {
        let body = Self.bytes("--b\r\nA:\r\nB: \t x y \r\nC:caf\u{E9}\r\nD: ") + [0xC3, 0x28] + Self.bytes("\r\n\r\n\r\n--b--")
        let outcome = Self.parse(body, boundary: "b")
        #expect(outcome.pieces == [.header("A", ""), .header("B", "x y "), .header("C", "caf\u{E9}"), .header("D", ""), .partEnd], "\(outcome)")
    }

    @Test("one part's header lines are bounded; the bound restarts with each part")
    func headerLimit() {
        let part = "--b\r\n\(Self.disposition)\r\nv\r\n"
        let size = Self.disposition.utf8.count + 2
        let body = Self.bytes(part + part + "--b--")
        #expect(Self.parse(body, boundary: "b", maximumHeaderSize: size).isClosed)
        let outcome = Self.parse(body, boundary: "b", maximumHeaderSize: size - 1)
        #expect(outcome.failure == .headersTooLarge && outcome.pieces == [.header("Content-Disposition", "form-data; name=\"f\"")])
        #expect(Self.parse(body, boundary: "b", maximumHeaderSize: size - 3).pieces.isEmpty)
        let long = Self.bytes("--b\r\nX: " + String(repeating: "y", count: 100_000))
        #expect(Self.parse(long, boundary: "b", maximumHeaderSize: 1000).failure == .headersTooLarge)
    }

    /// A random multipart body: 1–3 parts whose contents are drawn from CR, LF, `-` and the boundary's own bytes.
    /// - Returns: the body and the contents, or nil contents when one of them happens to hold the delimiter.
    static func randomBody(_ generator: inout SplitMix64, boundary: String) -> (body: [UInt8], contents: [[UInt8]]?) {
        let alphabet = bytes("\r\n--" + boundary)
        let delimiter = bytes("\r\n--\(boundary)")
        var body = Int.random(in: 0..<3, using: &generator) == 0 ? bytes("pre-\r\n") : []
        var contents: [[UInt8]]? = []
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let content = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            if (bytes("\r\n") + content + delimiter).firstRange(of: delimiter)?.lowerBound != content.count + 2 { contents = nil }
            contents?.append(content)
            body += bytes("--\(boundary)\r\n\(disposition)\r\n") + content + bytes("\r\n")
        }
        return (body + bytes("--\(boundary)--\r\n"), contents)
    }

    @Test("any chunking of a body parses as the whole body does: a byte at a time, every single cut, random cuts")
    func chunkings() {
        var generator = SplitMix64(seed: 0x3A17_0001)
        var corpus: [(body: [UInt8], boundary: String)] = Self.broken.map { (Self.bytes($0.text), "b") }
        let file = (0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) } + Self.bytes("\r\n--b0undar\r\n-\r\r\n--b0undary-")
        corpus.append((Self.bytes("--b0undary\r\n\(Self.disposition)\r\n") + file + Self.bytes("\r\n--b0undary--"), "b0undary"))
        var checked = 0
        for round in 0..<200 {
            let boundary = ["b", "-", "a-a", "--xy", "----featureload42"][round % 5]
            var (body, contents) = Self.randomBody(&generator, boundary: boundary)
            if let contents {
                let outcome = Self.parse(body, boundary: boundary)
                #expect(outcome.bodies == contents && outcome.isClosed, "\(outcome)")
                checked += 1
            }
            if round % 3 == 0, !body.isEmpty {
                // Corrupted: a byte replaced, or the body cut short.
                let position = Int.random(in: body.indices, using: &generator)
                if round % 2 == 0 { body[position] = Self.bytes("\r\n-:x")[round % 5] } else { body = Array(body[..<position]) }
            }
            corpus.append((body, boundary))
        }
        #expect(checked > 60)
        for (body, boundary) in corpus {
            let whole = Self.parse(body, boundary: boundary)
            #expect(Self.parse(body, boundary: boundary, cuts: Array(body.indices)) == whole, "a byte at a time: \(whole)")
            if body.count < 400 {
                for cut in body.indices where Self.parse(body, boundary: boundary, cuts: [cut]) != whole {
                    Issue.record("cut at \(cut) of \(String(decoding: body, as: UTF8.self).debugDescription)")
                }
            }
            for _ in 0..<10 {
                let cuts = (0..<Int.random(in: 1...6, using: &generator)).map { _ in Int.random(in: 0...body.count, using: &generator) }
                #expect(Self.parse(body, boundary: boundary, cuts: cuts) == whole, "cuts \(cuts)")
            }
        }
    }
}
