extension PointAdds {
    /// What the reader asks of every rule for every record, in memory that no reference count guards: names and keys
    /// as ranges of one byte buffer, the rest as plain values. The rules themselves (objects, and the arrays in them)
    /// are shared by every checking thread, and each use retained and released them: atomic updates of counts that
    /// the threads kept taking from each other's cores (a quarter of the fast path's time in a profile of `apply`).
    ///
    /// Made once with its ``PointAdds`` and never changed; freed with it. The reader holds it `unowned(unsafe)`, for
    /// the span of a call that holds the table.
    final class RuleTable: @unchecked Sendable {
        struct Entry {
            /// Where the field's name, and its key `"name":`, lie in ``bytes``.
            var name: Range<Int>
            var key: Range<Int>
            var kind: Kind
            var nullable: Bool
            /// A range domain's bounds, nil without one.
            var range: ClosedRange<Double>?
            /// Whether the rule has a coded-value domain: its codes are checked through ``rules``, off the common path.
            var hasCodes: Bool
        }

        let bytes: UnsafeMutableBufferPointer<UInt8>
        let entries: UnsafeMutableBufferPointer<Entry>
        /// The rules, by index, for their codes.
        let rules: [Rule]

        init(_ rules: [Rule]) {
            self.rules = rules
            bytes = .allocate(capacity: max(1, rules.reduce(0) { $0 + $1.name.count + $1.key.count }))
            entries = .allocate(capacity: max(1, rules.count))
            var offset = 0
            func put(_ text: [UInt8]) -> Range<Int> {
                _ = UnsafeMutableBufferPointer(rebasing: bytes[offset...]).initialize(fromContentsOf: text)
                defer { offset += text.count }
                return offset..<(offset + text.count)
            }
            for (index, rule) in rules.enumerated() {
                let name = put(rule.name)
                let key = put(rule.key)
                (entries.baseAddress! + index).initialize(
                    to: Entry(
                        name: name, key: key, kind: rule.kind, nullable: rule.nullable, range: rule.range,
                        hasCodes: rule.integerCodes != nil || rule.textCodes != nil))
            }
        }

        deinit {
            bytes.deallocate()
            entries.deallocate()
        }

        var count: Int { rules.count }

        /// The bytes of `range` (a name or a key).
        @inline(__always)
        func text(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: bytes[range])
        }
    }
}
