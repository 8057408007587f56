import FeatureModel
import FeatureServiceClient
import Foundation

/// The files of an `--attachments` directory, indexed by the key values they belong to.
///
/// A record whose key attribute is `P001` gets `DIR/P001.jpg`, `DIR/P001_front.jpg` (any name that starts with the
/// key and `_`) and every file in `DIR/P001/`. Hidden files are skipped. Indexed once, when planning starts: memory
/// holds one entry per file.
package struct AttachmentDirectory: Sendable {
    package let directory: String
    /// Relative paths by key, in name order.
    let files: [String: [String]]
    /// Each file's size in bytes, by relative path.
    let sizes: [String: Int64]

    /// Indexes `directory`.
    /// - Throws: ``ApplyError/invalidOptions(_:)`` when it is not a readable directory.
    package init(_ directory: String) throws {
        self.directory = directory
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue,
            let names = try? manager.contentsOfDirectory(atPath: directory)
        else {
            throw ApplyError.invalidOptions("--attachments \(directory): not a readable directory. Fix: give the directory that holds the files")
        }
        var files: [String: [String]] = [:]
        var sizes: [String: Int64] = [:]
        func size(_ relative: String) -> Int64 {
            ((try? manager.attributesOfItem(atPath: directory + "/" + relative))?[.size] as? NSNumber)?.int64Value ?? 0
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = directory + "/" + name
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                let inner = (try? manager.contentsOfDirectory(atPath: path)) ?? []
                for file in inner.sorted() where !file.hasPrefix(".") {
                    var innerIsDirectory: ObjCBool = false
                    if manager.fileExists(atPath: path + "/" + file, isDirectory: &innerIsDirectory), !innerIsDirectory.boolValue {
                        files[name, default: []].append(name + "/" + file)
                        sizes[name + "/" + file] = size(name + "/" + file)
                    }
                }
                continue
            }
            let stem = name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
            guard !stem.isEmpty else { continue }
            files[stem, default: []].append(name)
            sizes[name] = size(name)
            // `P001_front.jpg` belongs to P001 too (and to P001_front).
            var prefix = stem
            while let underscore = prefix.lastIndex(of: "_") {
                prefix = String(prefix[..<underscore])
                if !prefix.isEmpty { files[prefix, default: []].append(name) }
            }
        }
        self.files = files
        self.sizes = sizes
    }

    /// The size in bytes of a planned attachment's file, as indexed.
    func size(of attachment: PlannedAttachment) -> Int64 {
        let relative =
            attachment.add.file.hasPrefix(directory + "/") ? String(attachment.add.file.dropFirst(directory.count + 1)) : attachment.add.file
        return sizes[relative] ?? 0
    }

    /// The number of files found.
    var fileCount: Int { Set(files.values.joined()).count }

    /// The relative paths of the files for `key` (a record's key attribute: text or a whole number).
    func files(for key: JSONValue) -> [String] {
        let text: String
        if let string = key.stringValue {
            text = string.trimmingCharacters(in: .whitespaces)
        } else if let number = key.intValue {
            text = String(number)
        } else {
            return []
        }
        guard !text.isEmpty, !text.contains("/") else { return [] }
        return files[text] ?? []
    }

    /// The attachments of the add at `position` (GlobalID `parentGlobalId`, in `layer`) for `key`, each with a GlobalID
    /// derived (as `scheme` lays them out) from its parent and file, so planning the same input again gives the same ones.
    func attachments(for key: JSONValue, layer: Int, position: Int, parentGlobalId: String, scheme: DerivedGlobalID.Scheme) -> [PlannedAttachment] {
        files(for: key).map { relative in
            let name = relative.split(separator: "/").last.map(String.init) ?? relative
            let add = AttachmentAdd(
                layer: layer,
                globalId: DerivedGlobalID.make(layer: layer, position: position, source: parentGlobalId + "/" + relative, scheme: scheme),
                parentGlobalId: parentGlobalId, file: directory + "/" + relative, name: name, contentType: MediaType.forFileName(name))
            return PlannedAttachment(position: position, add: add)
        }
    }
}
