package import FeatureModel

/// One shape of applyEdits request as ``ApplyEditsRetryMachine`` sees it: the little the exactly-once rule
/// (``ExactlyOnceRule``) reads of it. The machine's decisions are the same for every shape; only these answers differ.
///
/// Two shapes conform: ``LayerEdits`` (one layer's adds, updates and deletes, `POST …/<id>/applyEdits`) and
/// ``AtomicAdds`` (adds across a service's layers with their files, `POST …/FeatureServer/applyEdits`, all or none).
package protocol ExactlyOnceEdits: Sendable, Hashable {
    /// What the service answers to a request of these edits.
    associatedtype Answer: Sendable, Hashable
    /// How the edits are sent, as far as the rule is concerned: the options, and where adds keep their GlobalIDs.
    associatedtype Settings: Sendable, Hashable

    /// The normalized GlobalID of every add, in request order, or `nil` when some add has none (or the request does
    /// not keep client GlobalIDs): then the adds can be neither checked nor safely resent.
    func addGlobalIds(_ settings: Settings) -> [String]?

    /// What to do after an ambiguous failure of these edits (see ``ExactlyOnceRule/AmbiguityAction``).
    func actionAfterAmbiguousFailure(_ settings: Settings) -> ExactlyOnceRule.AmbiguityAction

    /// Whether the service applies all the edits or none (`rollbackOnFailure=true`).
    static func rollsBack(_ settings: Settings) -> Bool

    /// These edits without their adds (abandoned after an ambiguous failure), or `nil` when nothing would be left.
    var withoutAdds: Self? { get }

    /// Why edits that cannot be checked by key are given up after `failure`, a failure that may have applied them.
    func uncheckedReason(after failure: String) -> String
}

extension ExactlyOnceEdits {
    package func uncheckedReason(after failure: String) -> String {
        ExactlyOnceRule.unkeyedAddsReason(after: failure)
    }
}

/// How one layer's edits are sent: the applyEdits options and the layer's GlobalID field, where adds carry theirs.
package struct LayerEditSettings: Sendable, Hashable {
    package var options: ApplyEditsOptions
    package var globalIdField: String

    package init(options: ApplyEditsOptions, globalIdField: String) {
        self.options = options
        self.globalIdField = globalIdField
    }
}

extension LayerEdits: ExactlyOnceEdits {
    package typealias Answer = ApplyEditsResult
    package typealias Settings = LayerEditSettings

    package func addGlobalIds(_ settings: LayerEditSettings) -> [String]? {
        ExactlyOnceRule.addGlobalIds(self, options: settings.options, globalIdField: settings.globalIdField)
    }

    package func actionAfterAmbiguousFailure(_ settings: LayerEditSettings) -> ExactlyOnceRule.AmbiguityAction {
        ExactlyOnceRule.actionAfterAmbiguousFailure(self, options: settings.options, globalIdField: settings.globalIdField)
    }

    package static func rollsBack(_ settings: LayerEditSettings) -> Bool { settings.options.rollbackOnFailure }

    /// The updates and deletes alone, or `nil` when there are none.
    package var withoutAdds: LayerEdits? {
        guard count > addCount else { return nil }
        var rest = self
        rest.adds = []
        rest.encodedAdds = nil
        return rest
    }
}
