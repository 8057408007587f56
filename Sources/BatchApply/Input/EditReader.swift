/// A pull-based source of edits read from an input file, one record at a time.
///
/// Each call returns the next record as an ``InputEdit`` or, when that record cannot be read, an ``InputProblem``
/// with its position, and reading can go on with the next record: the caller decides whether one bad record
/// refuses the whole input (the default of `featureload apply`) or is skipped (`--skip-invalid`). A problem
/// with the file's structure (a JSON document cut short, a CSV header missing a named column) comes last: after
/// it `next()` returns nil.
///
/// Readers hold an open file and read it in chunks (or pages of rows), so memory stays flat however large the
/// file is. They block the calling thread on file I/O and are not `Sendable`: one task owns a reader.
///
/// ```swift
/// var reader = try InputFile.open(path: "edits.geojson", options: InputOptions(kindField: "_edit"))
/// while let record = reader.next() {
///     switch record {
///     case .success(let edit): batch.append(edit)
///     case .failure(let problem): problems.append(problem)
///     }
/// }
/// ```
package protocol EditReader {
    /// The next record, or nil when the input is exhausted (and nil again when asked after that).
    mutating func next() -> Result<InputEdit, InputProblem>?

    /// The next record as read from the file, perhaps not decoded yet, or nil when the input is exhausted. Readers
    /// whose records are texts of their own (a GeoJSON feature, a line of newline-delimited GeoJSON) leave parsing
    /// them to ``ReadRecord/decode()``, which the planner calls on several threads; by default, ``next()``.
    mutating func nextRead() -> ReadRecord?

    /// The text a rejects file in the input's own format starts with, before the rejected records' `source`s: the
    /// CSV header row; nil for formats whose records stand alone. Known once the first record has been read.
    var rejectsHeader: String? { get }

    /// Things the reader left out that the user should hear about (a GeoPackage's BLOB columns), one sentence
    /// each; empty by default.
    var notes: [String] { get }
}

extension EditReader {
    /// None: records stand alone.
    package var rejectsHeader: String? { nil }

    /// None.
    package var notes: [String] { [] }

    /// The next record, decoded.
    package mutating func nextRead() -> ReadRecord? { next().map(ReadRecord.decoded) }

    /// Reads every remaining record, edits and problems apart. For small inputs and tests: it holds them all.
    package mutating func readAll() -> (edits: [InputEdit], problems: [InputProblem]) {
        var edits: [InputEdit] = []
        var problems: [InputProblem] = []
        while let record = next() {
            switch record {
            case .success(let edit): edits.append(edit)
            case .failure(let problem): problems.append(problem)
            }
        }
        return (edits, problems)
    }
}

/// A record read from an input file: decoded already, or its text with the decoding still to do (a pure function of
/// the text and its position, so any thread may do it).
package enum ReadRecord: Sendable {
    case decoded(Result<InputEdit, InputProblem>)
    /// The record's text, `byteCount` bytes long, and how to decode it; for a GeoJSON Feature record that decodes to an
    /// add, its text (for the planner's fast path, ``PointAdds``).
    case deferred(byteCount: Int, geoJSON: GeoJSONText? = nil, decode: @Sendable () -> Result<InputEdit, InputProblem>)

    /// About how many bytes the record holds: its text's.
    package var byteCount: Int {
        switch self {
        case .decoded(.success(let edit)): edit.source.utf8.count
        case .decoded(.failure(let problem)): problem.source?.utf8.count ?? 0
        case .deferred(let byteCount, _, _): byteCount
        }
    }

    /// The record, decoded.
    package func decode() -> Result<InputEdit, InputProblem> {
        switch self {
        case .decoded(let result): result
        case .deferred(_, _, let decode): decode()
        }
    }
}
