import FeatureServiceClient
import Foundation

/// Writes the edits that did not apply — rejected, failed after retries, and input records that could not be read —
/// back in the input's own format, ready to fix and apply again, with a list of why beside them. Edits whose fate is
/// in doubt (an attempt may have applied them) are not written: applied again from a new file they would get a new
/// GlobalID and could be added twice; `--resume` settles them.
///
/// The records are written exactly as they stood in the input; the reasons go to a tab-separated file next to them
/// (`<rejects>.reasons.tsv`: position, line, status, ArcGIS code, reason), so the rejects file itself stays clean.
/// GeoPackage rows, which cannot be written back as rows, are written as Esri JSON edits.
///
/// Both are written into what `--rejects` names (``OutputFile``): `/dev/null`, a FIFO or `-` is written, not replaced.
/// Such a path has no folder to put a reasons file in, so none is written beside it (the journal keeps every reason).
package enum RejectsWriter {
    /// What was written.
    package struct Written: Sendable, Hashable {
        package var path: String
        /// Where the reasons went; nil when the rejects went to a device, a FIFO or standard output.
        package var reasonsPath: String?
        package var count: Int
    }

    /// The file extension rejects of `format` are written with.
    package static func fileExtension(for format: InputFormat) -> String {
        switch format {
        case .geojson: return "geojson"
        case .geojsonSeq: return "geojsonl"
        case .csv: return "csv"
        case .esriJSON, .geoPackage: return "json"
        }
    }

    /// Writes the rejects of `journal` to `path`, or nothing (and removes a stale file) when every edit applied.
    /// - Returns: What was written, or nil when there was nothing to write.
    /// - Throws: ``ApplyError/journal(_:)`` when the journal cannot be read; file errors.
    package static func write(journal: ApplyJournal, to path: String) throws -> Written? {
        let header = try journal.header()
        let reasonsPath = path + ".reasons.tsv"
        var records: [(kind: InputEdit.Kind?, layer: Int?, source: String, position: InputPosition, status: String, code: Int?, reason: String)] = []
        try journal.forEachProblem { problem in
            records.append((problem.kind, problem.layer, problem.source ?? "", problem.position, "invalid", nil, problem.reason))
        }
        try journal.forEachReject { edit in
            records.append(
                (
                    edit.planned.kind, edit.planned.layer, edit.planned.source, edit.planned.position, edit.status.rawValue, edit.code,
                    edit.reason ?? ""
                ))
        }
        records.sort { $0.position.index < $1.position.index }
        let rejects = OutputFile(path, option: "--rejects")
        let reasonsFile = OutputFile(reasonsPath, option: "--rejects")
        guard !records.isEmpty else {
            // A stale regular file goes; `/dev/null` or a link is left as it is.
            rejects.removeStale()
            reasonsFile.removeStale()
            return nil
        }
        // A record whose text could not be cut out of the input has only its reason.
        let written = records.filter { !$0.source.isEmpty }
        var text = ""
        switch header.reading.format {
        case .geojson:
            text = #"{"type":"FeatureCollection","features":["# + "\n" + written.map(\.source).joined(separator: ",\n") + "\n]}\n"
        case .geojsonSeq:
            text = written.map { $0.source.replacingOccurrences(of: "\n", with: " ") + "\n" }.joined()
        case .csv:
            text = header.reading.rejectsHeader.map { $0 + "\n" } ?? ""
            text += written.map { $0.source.hasSuffix("\n") ? $0.source : $0.source + "\n" }.joined()
        case .esriJSON, .geoPackage:
            // Esri JSON: service-level edits, one entry per layer, in the applyEdits shape the reader takes.
            var layers: [Int: [InputEdit.Kind: [String]]] = [:]
            for record in written {
                layers[record.layer ?? header.layer, default: [:]][record.kind ?? .add, default: []].append(record.source)
            }
            let entries = layers.keys.sorted().map { id -> String in
                var parts = [#""id":\#(id)"#]
                for kind in [InputEdit.Kind.add, .update, .delete] {
                    guard let sources = layers[id]?[kind], !sources.isEmpty else { continue }
                    parts.append(#""\#(kind.rawValue)s":[\#(sources.joined(separator: ",\n"))]"#)
                }
                return "{" + parts.joined(separator: ",\n") + "}"
            }
            text = "[" + entries.joined(separator: ",\n") + "]\n"
        }
        let besideFile: Bool
        if case .replaced = rejects.destination { besideFile = true } else { besideFile = false }
        try rejects.write(text.utf8)
        guard besideFile else { return Written(path: path, reasonsPath: nil, count: records.count) }
        var reasons = "position\tline\tstatus\tcode\treason\n"
        for record in records {
            let reason = record.reason.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ")
            reasons +=
                "\(record.position.index + 1)\t\(record.position.line.map(String.init) ?? "")\t\(record.status)\t\(record.code.map(String.init) ?? "")\t\(reason)\n"
        }
        try reasonsFile.write(reasons.utf8)
        return Written(path: path, reasonsPath: reasonsPath, count: records.count)
    }
}
