import Foundation
import GRDB

/// Reads the pages of the plan's texts (``PlanTexts``) for edits read in input order: the page last read is kept, so
/// each page is read about once however many of its edits are.
struct TextPages {
    private var last: (id: Int64, texts: PlanTexts)?

    /// The payload and input record at `slot` of page `page`.
    /// - Throws: ``ApplyError/journal(_:)`` when the journal has no such page or slot (a damaged journal).
    mutating func texts(_ db: Database, page: Int64, slot: Int?) throws -> (payload: String, source: String) {
        try self.page(db, page, slot: slot).texts(at: slot ?? 0)
    }

    /// The payload at `slot` of page `page`, its input record left unread (what sending needs).
    /// - Throws: ``ApplyError/journal(_:)`` when the journal has no such page or slot (a damaged journal).
    mutating func payload(_ db: Database, page: Int64, slot: Int?) throws -> String {
        try self.page(db, page, slot: slot).payload(at: slot ?? 0)
    }

    private mutating func page(_ db: Database, _ page: Int64, slot: Int?) throws -> PlanTexts {
        guard slot != nil else { throw ApplyError.journal("an edit of the journal points into page \(page) of the plan's texts without a slot") }
        if let last, last.id == page { return last.texts }
        guard let bytes = try Data.fetchOne(db, sql: "SELECT texts FROM planText WHERE id = ?", arguments: [page]) else {
            throw ApplyError.journal("the journal has no page \(page) of the plan's texts")
        }
        let texts = try PlanTexts([UInt8](bytes))
        last = (page, texts)
        return texts
    }
}
