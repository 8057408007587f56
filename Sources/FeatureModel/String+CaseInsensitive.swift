extension String {
    /// Whether the two are equal ignoring case, as ArcGIS compares field names. ASCII names (nearly all) are compared
    /// byte by byte without allocating; others as `lowercased()` strings.
    public func caseInsensitiveEquals(_ other: String) -> Bool {
        if utf8.count == other.utf8.count {
            var ascii = true
            for (a, b) in zip(utf8, other.utf8) where a != b {
                if a >= 0x80 || b >= 0x80 {
                    ascii = false
                    break
                }
                // Bytes that differ are equal ignoring case only as the two cases of one letter.
                let folded = a | 0x20
                guard folded == b | 0x20, folded >= 0x61, folded <= 0x7A else { return false }
            }
            if ascii { return true }
        } else if utf8.allSatisfy({ $0 < 0x80 }) && other.utf8.allSatisfy({ $0 < 0x80 }) {
            return false
        }
        return lowercased() == other.lowercased()
    }
}
