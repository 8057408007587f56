extension String {
    /// Whether the two are equal ignoring case, as ArcGIS compares field names. ASCII names (nearly all) are compared
    /// byte by byte in one pass, without allocating; once a byte outside ASCII is met, as `lowercased()` strings.
    ///
    /// The pass may answer false early: an ASCII prefix that differs at an ASCII byte (other than in case) or ends
    /// where the other string goes on with an ASCII byte cannot lower-case to the same string, since an ASCII
    /// character lower-cases to one ASCII character and no combining mark comes before a difference in the prefix.
    package func caseInsensitiveEquals(_ other: String) -> Bool {
        var mine = utf8.makeIterator()
        var theirs = other.utf8.makeIterator()
        while true {
            switch (mine.next(), theirs.next()) {
            case (nil, nil):
                return true
            case (let a?, let b?) where a < 0x80 && b < 0x80:
                if a == b { continue }
                // Bytes that differ are equal ignoring case only as the two cases of one letter.
                let folded = a | 0x20
                guard folded == b | 0x20, folded >= 0x61, folded <= 0x7A else { return false }
            case (nil, let b?) where b < 0x80:
                return false
            case (let a?, nil) where a < 0x80:
                return false
            default:
                // Names spelled the same (the usual case even outside ASCII) need no lower-casing.
                return self == other || lowercased() == other.lowercased()
            }
        }
    }
}
