import Foundation

/// Text from a run (scenario and operation names, messages, file names, URLs) made safe for Markdown: it can neither
/// break a table row or list item nor become HTML, and reads as it was written.
enum MarkdownText {
    /// For running text and table cells: `|` escaped, HTML's special characters as entities, line breaks as `<br>`.
    static func text(_ raw: String) -> String {
        var out = ""
        out.reserveCapacity(raw.utf8.count)
        var previous: Character?
        for character in raw {
            switch character {
            case "|": out += "\\|"
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\r\n", "\r": out += "<br>"
            case "\n": if previous != "\r" { out += "<br>" }
            default: out.append(character)
            }
            previous = character
        }
        return out
    }

    /// A code span holding `raw` as it is: fenced by more backticks than it contains in a row, `|` escaped (tables
    /// are split before code spans are read), line breaks as spaces (as a code span shows them anyway).
    static func code(_ raw: String) -> String {
        var longest = 0
        var run = 0
        for character in raw {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        var body = raw.replacingOccurrences(of: "|", with: "\\|")
        body = body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).joined(separator: " ")
        // A span that starts or ends with a backtick needs a space between it and the fence.
        if body.hasPrefix("`") || body.hasSuffix("`") { body = " " + body + " " }
        return fence + body + fence
    }
}
