import Foundation
import KeychainCore

/// What a backup wrote.
public struct BackupSummary: Sendable, Equatable {
    /// Items in the archive.
    public var itemCount: Int
    /// Items left out because they never leave this device: a ThisDeviceOnly accessibility.
    public var thisDeviceOnly: Int
    /// Items left out because their data opens only with the user's factors here (access control), and private
    /// keys the keychain keeps to itself (not extractable).
    public var boundToThisKeychain: Int
}

/// What an archive holds, as `verify-backup` reports it.
public struct BackupContents: Sendable, Equatable {
    /// The items the archive holds (every one was opened and checked).
    public var itemCount: Int
    /// When it was made.
    public var created: Date
}

/// What a restore does with an archived item whose primary key is already stored.
public enum RestoreConflictPolicy: String, Sendable, CaseIterable {
    /// Keep the stored item; the archived one is skipped.
    case keep
    /// Replace the stored item with the archived one.
    case replace
    /// Keep whichever was modified last.
    case newer
}

/// What a restore did.
public struct RestoreSummary: Sendable, Equatable {
    /// Items added.
    public var added: Int
    /// Stored items replaced by archived ones.
    public var replaced: Int
    /// Archived items skipped (the stored one was kept).
    public var kept: Int
}

/// Encrypted backup and restore of the keychain's migratable items (DESIGN §16): everything but the ThisDeviceOnly
/// classes, as Apple's encrypted backups; items with access control and non-extractable keys stay with this
/// keychain too (their data opens only here).
extension Keychain {
    /// Writes every migratable item the caller may read to the file at `url` as one encrypted archive under
    /// `passphrase` (Argon2id at `cost`, then libsodium's secretstream), mode 0600; the file appears only once whole
    /// (a failure leaves no file). `progress` hears (done, total) as items are sealed (after each page of a few hundred at
    /// most).
    @discardableResult
    public func backup(
        to url: URL, passphrase: Passcode, cost: PasscodeCost = .standard, progress: ((Int, Int) -> Void)? = nil
    ) throws(KeychainError) -> BackupSummary {
        let file: AtomicFile<EngineError>
        do throws(EngineError) {
            file = try AtomicFile(destination: url)
        } catch {
            throw KeychainError(error, doing: "cannot write the backup")
        }
        let summary = try backup(
            writingWith: { (bytes) throws(EngineError) in try file.file.write(bytes) },
            passphrase: passphrase, cost: cost, progress: progress)
        do throws(EngineError) {
            try file.commit()
        } catch {
            throw KeychainError(error, doing: "cannot write the backup")
        }
        return summary
    }

    /// Writes the archive to `output` as it is made (standard output, a pipe).
    @discardableResult
    public func backup(
        to output: FileHandle, passphrase: Passcode, cost: PasscodeCost = .standard,
        progress: ((Int, Int) -> Void)? = nil
    ) throws(KeychainError) -> BackupSummary {
        try backup(
            writingWith: { (bytes) throws(EngineError) in
                do {
                    try output.write(contentsOf: bytes)
                } catch {
                    throw EngineError(.ioError, "the backup could not be written: \(error.localizedDescription)")
                }
            }, passphrase: passphrase, cost: cost, progress: progress)
    }

    private func backup(
        writingWith sink: @escaping BackupWriter.Sink, passphrase: Passcode, cost: PasscodeCost,
        progress: ((Int, Int) -> Void)?
    ) throws(KeychainError) -> BackupSummary {
        try perform("cannot back up the keychain") { (connection, caller) throws(EngineError) -> BackupSummary in
            // Two passes over the items in pages, so that memory stays flat in the item count: the first counts
            // (the header announces the count, attributes only), the second seals each item as it comes.
            let listing = BackupListing(backend: try connection.backend(), caller: caller)
            if let summary = try listing.engineCensus() {
                // The engine hands each item over as its row holds it (attributes in their coded form), in pages:
                // no Item is built, no attribute decoded and encoded again. Progress is told after each page,
                // outside the engine's lock.
                let total = summary.itemCount
                let writer = try BackupWriter(to: sink, itemCount: total, passphrase: passphrase, cost: cost)
                var cursor: Int64?
                repeat {
                    cursor = try listing.engineSource?.backupPage(
                        for: caller, after: cursor, limit: BackupListing.pageSize
                    ) { (itemClass, attributes, data) throws(EngineError) in
                        guard writer.written < total else { throw Self.changedDuringBackup(counted: total) }
                        try writer.append(itemClass: itemClass, codedAttributes: attributes, data: data)
                    }
                    progress?(writer.written, total)
                } while cursor != nil
                guard writer.written == total else { throw Self.changedDuringBackup(counted: total) }
                try writer.finish()
                return summary
            }
            let summary = try listing.census()
            let total = summary.itemCount
            let writer = try BackupWriter(to: sink, itemCount: total, passphrase: passphrase, cost: cost)
            try listing.forEach(returning: [.attributes, .data]) { (item) throws(EngineError) in
                guard BackupListing.Placement(item.attributes) == .migratable else { return }
                guard writer.written < total else { throw Self.changedDuringBackup(counted: total) }
                try writer.append(
                    BackupArchive.Entry(
                        itemClass: item.itemClass, attributes: item.attributes, data: item.data ?? Data()))
                progress?(writer.written, total)
            }
            guard writer.written == total else { throw Self.changedDuringBackup(counted: total) }
            try writer.finish()
            return summary
        }
    }

    /// A keychain written to between the two passes of a backup: the archive announces a count it cannot keep.
    private static func changedDuringBackup(counted: Int) -> EngineError {
        EngineError(
            .internalComponent,
            "the keychain changed while it was being backed up (\(counted) items were counted first), or an item "
                + "fails authentication (`security verify-keychain` lists it): nothing complete was written; run "
                + "the backup again")
    }

    /// Checks every message of an archive (the passphrase, each item's authentication, the order, the end) without
    /// restoring anything.
    public static func verifyBackup(from input: FileHandle, passphrase: Passcode) throws(KeychainError)
        -> BackupContents
    {
        do throws(EngineError) {
            let reader = try BackupReader(from: input, passphrase: passphrase)
            while try reader.next() != nil {}
            return BackupContents(itemCount: reader.read, created: reader.header.created)
        } catch {
            throw KeychainError(error, doing: "the backup does not verify")
        }
    }

    /// Restores an archive into this keychain, all or nothing. The archive streams into one write transaction, item
    /// by item — of this process's engine, or of keychaind's through a write session on a connection of its own —
    /// committed only once its final message has been read and checked (rolled back otherwise), so memory stays flat
    /// in the item count on both sides; other writers to the keychain wait meanwhile. An archived item whose primary key is stored already is a conflict: with no policy
    /// the restore is refused naming them (``KeychainError/duplicateItem``); `.keep`, `.replace` and `.newer` decide
    /// per item. `progress` hears (done, total) after each item, while the keychain's lock is held: it must not call
    /// this keychain.
    @discardableResult
    public func restore(
        from input: FileHandle, passphrase: Passcode, onConflict policy: RestoreConflictPolicy? = nil,
        progress: ((Int, Int) -> Void)? = nil
    ) throws(KeychainError) -> RestoreSummary {
        try perform("cannot restore the backup") { (connection, caller) throws(EngineError) -> RestoreSummary in
            // Argon2id runs here, before any lock is taken.
            let reader = try BackupReader(from: input, passphrase: passphrase)
            let backend = try connection.backend()
            defer { connection.changes.catchUp() }
            guard let sessions = backend as? any KeychainWriteSessions else {
                throw EngineError(.unimplemented, "this keychain's backend writes no sessions: nothing to restore into")
            }
            return try sessions.withWriteSession { (session) throws(EngineError) -> RestoreSummary in
                var plan = RestorePlan(policy: policy)
                while let entry = try reader.next() {
                    // The add first: the store's unique index finds a conflict, and only then is the stored item
                    // looked up (a restore into an empty keychain pays for no lookups).
                    do throws(EngineError) {
                        _ = try session.write(.add(RestorePlan.newItem(entry)), for: caller)
                        plan.added()
                    } catch  where error.code == .duplicateItem {
                        let stored = try RestorePlan.stored(matching: entry) { (query) throws(EngineError) in
                            try session.attributesMatching(query, for: caller)
                        }
                        for write in plan.writes(for: entry, stored: stored) {
                            _ = try session.write(write, for: caller)
                        }
                    } catch {
                        throw error
                    }
                    progress?(reader.read, reader.header.itemCount)
                }
                // Conflicts refuse the whole restore: throwing rolls the session back.
                try plan.checkConflicts()
                return plan.summary
            }
        }
    }
}
