/// One operation of a scenario's workload: its kind's settings, the layer it works on, and its weight in a mix.
package struct OperationSpec: Sendable, Hashable {
    package typealias Kind = OperationKind

    /// An attachment size: fixed, or uniform between two sizes.
    package struct SizeRange: Sendable, Hashable {
        package var min: Int64
        package var max: Int64
        package init(_ min: Int64, _ max: Int64? = nil) {
            self.min = min
            self.max = max ?? min
        }
    }

    /// The kind of operation and the settings only it takes.
    package var settings: OperationSettings
    /// The tag value of this operation in metrics; the kind's name unless `name:` gives another.
    package var label: String
    /// Relative share of iterations in a `mix` (1 for a single `exec`).
    package var weight: Int = 1
    package var layer: Int = 0

    package init(_ settings: OperationSettings, label: String? = nil, layer: Int = 0) {
        self.settings = settings
        self.label = label ?? settings.kind.rawValue
        self.layer = layer
    }

    /// An operation of `kind` with that kind's default settings.
    package init(kind: Kind, label: String? = nil) {
        self.init(kind.settingsType.init().settings, label: label)
    }

    package var kind: Kind { settings.kind }

    /// Whether an iteration does little but wait on its request: it generates at most ``driverThreadEditLimit`` edits
    /// and reads a short answer (no query pages, files or attachments). A scenario of such operations runs its VUs on
    /// the transport's driver thread (``FeatureServiceClient/HTTPTransport/taskExecutor``), saving each round trip
    /// two thread wakeups; others run on the global executor, so their work never delays another VU's response.
    var fitsDriverThread: Bool { settings.owner.fitsDriverThread }

    /// The most edits an iteration on the driver thread generates: 100 adds take about 50 µs to write.
    static let driverThreadEditLimit = 100

    /// Edits one iteration sends when each succeeds (0 for reads).
    package var editsPerIteration: Int { settings.owner.editsPerIteration }

    /// Adds one iteration sends.
    package var addsPerIteration: Int { settings.owner.addsPerIteration }

    /// Whether the operation works on features that already exist (so the scenario samples a pool of ids).
    var needsExistingFeatures: Bool { settings.owner.existingFeatures != nil }

    /// The relationship the operation works through, if any.
    package var relationship: Int? { settings.owner.relationship }

    /// The operation with `value` as the batch size a `sweep: { batchSize: […] }` varies.
    func sweeping(batchSize value: Int) -> OperationSpec {
        var spec = self
        spec.settings = settings.owner.sweeping(batchSize: value).settings
        return spec
    }
}
