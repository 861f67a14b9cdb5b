/// The database schema and its migrations, applied in order inside one write transaction.
///
/// What is stored in clear is only what the engine must see before it can decrypt: the item's UUID, class,
/// protection class, synchronizable and tombstone flags, change sequence and modification time, and keyed
/// hashes (blind indexes) of the primary key, service, account, server and access group. Everything else is
/// sealed (DESIGN §3).
enum Schema {
    /// Migration `n` takes a database from `user_version` n to n + 1.
    static let migrations: [String] = [
        """
        CREATE TABLE keybag (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            uuid BLOB NOT NULL,
            passcode_salt BLOB,
            passcode_passes INTEGER,
            passcode_memory INTEGER,
            failed_attempts INTEGER NOT NULL DEFAULT 0,
            retry_after REAL NOT NULL DEFAULT 0,
            erase_after INTEGER NOT NULL DEFAULT 0,
            generation INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE class_keys (
            name TEXT PRIMARY KEY,
            wrapped BLOB NOT NULL,
            public_key BLOB
        );
        CREATE TABLE items (
            rowid INTEGER PRIMARY KEY,
            uuid BLOB NOT NULL UNIQUE,
            class TEXT NOT NULL,
            pdmn TEXT NOT NULL,
            sync INTEGER NOT NULL,
            tomb INTEGER NOT NULL DEFAULT 0,
            agrp BLOB NOT NULL,
            pk BLOB NOT NULL,
            svce BLOB,
            acct BLOB,
            srvr BLOB,
            seq INTEGER NOT NULL,
            mdat REAL NOT NULL,
            wrapped_key BLOB NOT NULL,
            metadata BLOB NOT NULL,
            secret BLOB
        );
        CREATE UNIQUE INDEX items_primary_key ON items(pk) WHERE tomb = 0;
        CREATE INDEX items_service ON items(svce);
        CREATE INDEX items_account ON items(acct);
        CREATE INDEX items_server ON items(srvr);
        CREATE INDEX items_group ON items(agrp);
        CREATE INDEX items_sequence ON items(seq);
        """,
        // The change log and its sealed counter (DESIGN §9). Existing rows keep their sequences (unique among the
        // rows, though a deleted top row's was reused) and become the legacy rows, sealed before rows bound their
        // sequence; each gets a record. `ChangeLog.sealMigrated` adds the hashes in the same transaction. Rows are
        // no longer looked up by sequence (the log is), and a class without a service or server leaves no entry in
        // that index: fewer pages for every write.
        """
        CREATE TABLE integrity (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            seq INTEGER NOT NULL,
            compacted INTEGER NOT NULL,
            horizon INTEGER NOT NULL,
            legacy_ceiling INTEGER NOT NULL,
            mac BLOB
        );
        INSERT INTO integrity (id, seq, compacted, horizon, legacy_ceiling)
            SELECT 1, IFNULL(MAX(seq), 0), IFNULL(MAX(seq), 0) - COUNT(*), IFNULL(MAX(seq), 0), IFNULL(MAX(seq), 0)
            FROM items;
        CREATE TABLE changes (
            seq INTEGER PRIMARY KEY,
            uuid BLOB NOT NULL,
            kind INTEGER NOT NULL,
            class TEXT NOT NULL,
            pdmn TEXT NOT NULL,
            sync INTEGER NOT NULL,
            agrp BLOB NOT NULL,
            mdat REAL NOT NULL,
            mac BLOB
        );
        INSERT INTO changes (seq, uuid, kind, class, pdmn, sync, agrp, mdat)
            SELECT seq, uuid, CASE tomb WHEN 0 THEN 1 ELSE 3 END, class, pdmn, sync, agrp, mdat FROM items;
        CREATE INDEX changes_item ON changes(uuid, seq);
        DROP INDEX items_sequence;
        DROP INDEX items_service;
        DROP INDEX items_server;
        CREATE INDEX items_service ON items(svce) WHERE svce IS NOT NULL;
        CREATE INDEX items_server ON items(srvr) WHERE srvr IS NOT NULL;
        """,
        // Each change record names its access group, sealed under a key from the device key (`GroupSeal`), so the
        // change feed can say and filter groups in every lock state. Older records keep none.
        """
        ALTER TABLE changes ADD COLUMN grp BLOB;
        """,
        // An item with access control (DESIGN §11) names its flags in clear, as its protection class is named, so
        // the engine knows before decrypting that its secret is sealed to factors, and passcode removal finds the
        // items only the passcode opens. The sealed metadata carries the same flags, and they must agree.
        """
        ALTER TABLE items ADD COLUMN acl INTEGER NOT NULL DEFAULT 0;
        """,
        // Each change record names its item's primary-key hash, so an exact lookup that finds no intact row can ask
        // the log whether the item exists. The records of the rows as they are get theirs here; the migration's
        // `finish` hashes them again (`ChangeLog.sealPrimaryKeys`) and raises the legacy ceiling, so every row is
        // sealed again under the current binding once its class key is at hand (`EngineState.rebindOlderRows`).
        """
        ALTER TABLE changes ADD COLUMN pk BLOB;
        UPDATE changes SET pk = (SELECT items.pk FROM items WHERE items.uuid = changes.uuid AND items.seq = changes.seq);
        CREATE INDEX changes_primary_key ON changes(pk) WHERE pk IS NOT NULL;
        """,
        // Keys and certificates are found by class within the caller's groups (a key by its tag, a certificate by
        // its subject), where no blind index of the passwords applies: without this index a key's lookup read
        // every item of the group.
        """
        CREATE INDEX items_class ON items(class, agrp);
        """,
        // Search terms (`sktm`): one blind index per term, so a Secret Service search by any attribute of its map
        // reads only the rows holding it. A row's terms go with the row, whatever deletes it.
        """
        CREATE TABLE item_terms (
            term BLOB NOT NULL,
            item INTEGER NOT NULL,
            PRIMARY KEY (term, item)
        ) WITHOUT ROWID;
        CREATE INDEX item_terms_item ON item_terms(item);
        CREATE TRIGGER items_delete_terms AFTER DELETE ON items BEGIN
            DELETE FROM item_terms WHERE item = old.rowid;
        END;
        """,
        // Removal records by sequence: compaction asks which older removals lost their row (`ChangeLog.compact`),
        // and without this index read every record of the log to find the few removals among them.
        """
        CREATE INDEX changes_removals ON changes(seq) WHERE kind = 3;
        """,
        // The group index goes: every search by group names a class too, and `items_class` (class, group) serves
        // it; the scans by group alone (backup, the plaintext scan) read the table in row order anyway. One b-tree
        // fewer for every add to write (issue 23: durable add 1.35 → 1.25× its floor, batch add 2.35 → 2.25×).
        """
        DROP INDEX items_group;
        """,
    ]

    /// What each migration adds that a reader can see (a table, a table's column, an index: a name that starts with
    /// `index:`, or an index it drops: `noindex:`), in order: the schema a database really has, checked against the
    /// version its header claims before anything is migrated.
    private static let marks: [(table: String, column: String?)] = [
        ("items", nil), ("integrity", nil), ("changes", "grp"), ("items", "acl"), ("changes", "pk"),
        ("index:items_class", nil), ("item_terms", nil), ("index:changes_removals", nil), ("noindex:items_group", nil),
    ]

    /// Brings the database to the current version; refuses a database made by a newer version of the engine.
    /// `finish` runs inside the migration's transaction with the version the database had, for the steps SQL
    /// cannot do (sealing).
    static func migrate(
        _ database: Database, finish: (Int) throws(EngineError) -> Void = { _ in }
    ) throws(EngineError) {
        // A read first: only a keychain that needs a migration takes the write lock.
        if try database.first("PRAGMA user_version", [], { Int($0.integer(0)) }) == migrations.count { return }
        try database.writeTransaction { () throws(EngineError) in
            let version = try database.first("PRAGMA user_version") { Int($0.integer(0)) } ?? 0
            try checkVersion(version, of: database)
            for migration in migrations[version...] {
                try database.execute(migration)
            }
            if version < migrations.count {
                try finish(version)
                try database.execute("PRAGMA user_version = \(migrations.count)")
            }
        }
    }

    /// Refuses a header version (SQLite's `user_version`, at offset 60 of the file) that is not one this build
    /// wrote, or that the tables contradict: a damaged header is reported, never migrated over (running
    /// migrations that already ran, or none that are due, would fail half-way or lose data).
    private static func checkVersion(_ version: Int, of database: Database) throws(EngineError) {
        guard (0...migrations.count).contains(version) else {
            throw EngineError(
                .decode,
                "the keychain database's header gives schema version \(version), which this build does not know "
                    + "(it writes version \(migrations.count)): a newer build made it, or the header was damaged")
        }
        var found = 0
        for mark in marks {
            let present: Bool
            if let column = mark.column {
                present =
                    try database.first(
                        "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", [.text(mark.table), .text(column)]
                    ) { _ in true } ?? false
            } else if let index = mark.table.split(separator: ":").last, mark.table.contains(":") {
                let exists =
                    try database.first(
                        "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", [.text(String(index))]
                    ) { _ in true } ?? false
                present = mark.table.hasPrefix("noindex:") ? !exists : exists
            } else {
                present =
                    try database.first(
                        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(mark.table)]
                    ) { _ in true } ?? false
            }
            guard present else { break }
            found += 1
        }
        guard found == version else {
            throw EngineError(
                .decode,
                "the keychain database's header gives schema version \(version), but its tables are those of version "
                    + "\(found): the header was damaged (nothing was changed)")
        }
    }
}
