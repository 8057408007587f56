/// The journal's tables, as a new journal makes them (an older one is upgraded to them in place: see
/// ``ApplyJournal/open(at:)``).
extension ApplyJournal {
    /// Every table and index of a new journal: the run's header, its batches, its edits (those not in packs), the
    /// plan's texts and packs, the files to attach, and the problems found in the input.
    static let schema = """
        CREATE TABLE run (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            version INTEGER NOT NULL,
            header TEXT NOT NULL,
            planned INTEGER NOT NULL DEFAULT 0,
            packSpan INTEGER NOT NULL DEFAULT 0,
            created REAL NOT NULL
        );
        CREATE TABLE batch (
            id INTEGER PRIMARY KEY,
            layer INTEGER NOT NULL,
            useGlobalIds INTEGER NOT NULL,
            atomic INTEGER NOT NULL DEFAULT 0,
            state TEXT NOT NULL DEFAULT 'planned',
            sends INTEGER NOT NULL DEFAULT 0,
            barrier INTEGER NOT NULL DEFAULT 0,
            applied BLOB
        );
        CREATE TABLE edit (
            position INTEGER PRIMARY KEY,
            line INTEGER,
            sourceTable TEXT,
            batch INTEGER REFERENCES batch(id),
            grp INTEGER,
            kind TEXT NOT NULL,
            layer INTEGER NOT NULL,
            globalId TEXT,
            objectId INTEGER,
            payload TEXT NOT NULL,
            source TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending',
            resultObjectId INTEGER,
            code INTEGER,
            reason TEXT,
            text INTEGER,
            slot INTEGER
        );
        CREATE INDEX edit_batch ON edit(batch);
        \(planTextTable)
        \(packTable)
        \(attachmentTable)
        CREATE TABLE problem (
            position INTEGER PRIMARY KEY,
            line INTEGER,
            sourceTable TEXT,
            reason TEXT NOT NULL,
            source TEXT,
            kind TEXT,
            layer INTEGER
        );
        """

    /// The files to attach, each keyed by its GlobalID, with the position of the add it goes with: made by a new
    /// journal and by the upgrade of a version-1 one.
    static let attachmentTable = """
        CREATE TABLE attachment (
            globalId TEXT PRIMARY KEY, position INTEGER NOT NULL, layer INTEGER NOT NULL, parentGlobalId TEXT NOT NULL,
            file TEXT NOT NULL, name TEXT NOT NULL, contentType TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'pending', reason TEXT
        );
        CREATE INDEX attachment_position ON attachment(position);
        """

    /// The texts of the plan's edits, a page (``PlanTexts``) per row: an edit whose `text` is not null has its payload
    /// and input record at `slot` of that page, and empty texts in its own row (version 3 and earlier kept them
    /// there).
    static let planTextTable = "CREATE TABLE planText (id INTEGER PRIMARY KEY, texts BLOB NOT NULL);"

    /// The packs of plain edits (``EditPack``): the edits of one batch written by one append, with their texts in one
    /// page, from input position `first` to `last`. A batch with packs has no rows in `edit`; its edits are open until
    /// `batch.applied` holds their object IDs (``AppliedIDs``), and any other outcome unpacks it into rows.
    static let packTable = """
        CREATE TABLE pack (
            id INTEGER PRIMARY KEY, batch INTEGER NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL, count INTEGER NOT NULL,
            text INTEGER NOT NULL, edits BLOB NOT NULL, slots BLOB NOT NULL, UNIQUE (batch, first)
        );
        CREATE INDEX pack_first ON pack(first);
        CREATE INDEX pack_last ON pack(last);
        """
}
