import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// The VFS that writes a commit's WAL frames in one call (`CSQLiteWAL`): what it gathers must reach the file before
/// anything reads it, in pieces the unix VFS accepts, and a transaction's frames must never be seen before it
/// commits.
@Suite("WAL frames gathered into one write")
struct WALGatheringTests {
    /// An empty database file, opened twice: a writer and a reader.
    private func connections(in directory: TemporaryDirectory) throws -> (Database, Database) {
        let path = directory.url.appendingPathComponent("gathered.db").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let writer = try Database(path: path)
        try writer.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, bytes BLOB NOT NULL)")
        return (writer, try Database(path: path))
    }

    private func rowCount(_ database: Database) throws(EngineError) -> Int64 {
        try database.first("SELECT COUNT(*) FROM rows") { $0.integer(0) } ?? -1
    }

    @Test("A transaction larger than the page cache spills frames in pieces and commits whole")
    func spilledTransactionCommitsWhole() throws {
        let directory = try TemporaryDirectory()
        let (writer, reader) = try connections(in: directory)
        // A small cache makes the writer spill frames into the WAL long before it commits: megabytes of them, far
        // past the 128 KiB the unix VFS writes in one call (the first version gathered 256 KiB and the spill failed
        // as "database or disk is full").
        try writer.execute("PRAGMA cache_size = 200")
        var seenBeforeCommit: Int64 = -1
        try writer.writeTransaction { () throws(EngineError) in
            for index in 0..<3000 {
                try writer.run(
                    "INSERT INTO rows (id, bytes) VALUES (?, randomblob(1000))", [.integer(Int64(index))])
            }
            seenBeforeCommit = try rowCount(reader)
        }
        // Spilled, not committed: the other connection saw none of it.
        #expect(seenBeforeCommit == 0)
        #expect(try rowCount(reader) == 3000)
        let total = try reader.first("SELECT SUM(LENGTH(bytes)) FROM rows") { $0.integer(0) }
        #expect(total == 3_000_000)
        #expect(try reader.first("PRAGMA integrity_check") { $0.text(0) } == "ok")
    }

    /// The VFS reports a failed write of gathered frames through the commit's sync, which only `synchronous = FULL`
    /// makes before the WAL index publishes them: under NORMAL a write failing at the shared-memory barrier would be
    /// lost, and the commit would succeed with frames that are not in the file (shown by a C harness in review).
    @Test("Every connection syncs the WAL before each commit is published (synchronous = FULL)")
    func everyConnectionSyncsBeforePublishing() throws {
        let directory = try TemporaryDirectory()
        let (writer, reader) = try connections(in: directory)
        for database in [writer, reader] {
            #expect(try database.first("PRAGMA synchronous") { $0.integer(0) } == 2)
            #expect(try database.first("PRAGMA journal_mode") { $0.text(0) } == "wal")
        }
    }

    @Test("Each commit is seen by another connection at once, its frames read back whole")
    func commitsAreSeenAtOnce() throws {
        let directory = try TemporaryDirectory()
        let (writer, reader) = try connections(in: directory)
        for index in 0..<300 {
            _ = try writer.run(
                "INSERT INTO rows (id, bytes) VALUES (?, zeroblob(?))",
                [.integer(Int64(index)), .integer(Int64(index))])
            let length = try reader.first("SELECT LENGTH(bytes) FROM rows WHERE id = ?", [.integer(Int64(index))]) {
                $0.integer(0)
            }
            #expect(length == Int64(index), "row \(index)")
        }
        #expect(try rowCount(reader) == 300)
        // A checkpoint by the reader copies the writer's frames into the database file: every byte was written.
        try reader.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(try reader.first("PRAGMA integrity_check") { $0.text(0) } == "ok")
        #expect(try rowCount(writer) == 300)
    }
}
