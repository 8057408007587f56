import Foundation

/// A fresh temporary directory for one test's inputs, journals, reports and database files, removed when the value is
/// released.
package final class TemporaryDirectory: Sendable {
    package let path: String

    package init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
