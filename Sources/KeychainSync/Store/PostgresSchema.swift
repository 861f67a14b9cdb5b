/// The PostgreSQL store's tables, created when missing and versioned, so a later build can migrate them and an
/// older build refuses a schema it does not know rather than misread it.
///
/// `keychain_sync_records` holds one row per record; its `name` column has the `C` collation, so its primary-key
/// index orders names by their bytes, as ``SyncStore/list(prefix:)`` promises, and serves the prefix's range query.
/// A row trigger notifies the channel `keychain_sync_records` on every insert and delete, in the writer's own
/// transaction, so listeners learn of a change exactly when it commits, whoever wrote it.
enum PostgresSchema {
    /// The version this build writes and reads.
    static let version = 1
    /// The table of records.
    static let table = "keychain_sync_records"
    /// The `LISTEN`/`NOTIFY` channel.
    static let channel = "keychain_sync_records"

    /// Takes the schema to ``version`` on `connection`, in one transaction under an advisory lock (so devices
    /// opening a new database at once do not race), or throws `.damaged` when it is newer than this build knows.
    static func prepare(_ connection: PostgresConnection) throws(SyncStoreError) {
        try connection.execute("BEGIN", doing: "start preparing the tables")
        do throws(SyncStoreError) {
            // An arbitrary constant: the key of this schema's advisory lock.
            try connection.execute("SELECT pg_advisory_xact_lock(7306395421830911041)", doing: "lock the schema")
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS keychain_sync_schema (version integer NOT NULL)",
                doing: "create the schema table")
            let rows = try connection.execute(
                "SELECT max(version)::text FROM keychain_sync_schema", doing: "read the schema version")
            let found = rows.values.first?.first.flatMap { $0 }.flatMap { Int(String(decoding: $0, as: UTF8.self)) }
            switch found {
            case nil:
                for statement in versionOne { try connection.execute(statement, doing: "create the tables") }
                try connection.execute(
                    "INSERT INTO keychain_sync_schema (version) VALUES ($1::integer)", [.text(String(version))],
                    doing: "record the schema version")
            case let found? where found > version:
                throw SyncStoreError(
                    .damaged,
                    "the sync tables in \(connection.description) have schema version \(found); this build knows "
                        + "only up to \(version)")
            default:
                break
            }
            try connection.execute("COMMIT", doing: "commit the tables")
        } catch {
            _ = try? connection.execute("ROLLBACK", doing: "roll back preparing the tables")
            throw error
        }
    }

    private static let versionOne = [
        """
        CREATE TABLE keychain_sync_records (
            name text COLLATE "C" PRIMARY KEY,
            bytes bytea NOT NULL,
            created timestamptz NOT NULL DEFAULT now()
        )
        """,
        """
        CREATE OR REPLACE FUNCTION keychain_sync_records_notify() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('keychain_sync_records', '');
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER keychain_sync_records_notify AFTER INSERT OR DELETE ON keychain_sync_records
            FOR EACH ROW EXECUTE FUNCTION keychain_sync_records_notify()
        """,
    ]
}
