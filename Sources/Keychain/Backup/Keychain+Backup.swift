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
    /// (a failure leaves no file). `progress` hears (done, total) after each item.
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
            let backend = try connection.backend()
            var entries: [BackupArchive.Entry] = []
            var summary = BackupSummary(itemCount: 0, thisDeviceOnly: 0, boundToThisKeychain: 0)
            for itemClass in ItemClass.allCases {
                let query = ItemQuery(
                    itemClass: itemClass, synchronizable: .any, limit: .all, returning: [.attributes, .data],
                    authentication: ItemAuthentication(interaction: .skipItems))
                let items: [Item]
                do throws(EngineError) {
                    items = try backend.copyMatching(query, for: caller)
                } catch  where error.code == .itemNotFound {
                    continue
                }
                for item in items {
                    let protection = ProtectionClass(rawValue: item.attributes.string(.accessible) ?? "") ?? .default
                    if protection.isThisDeviceOnly {
                        summary.thisDeviceOnly += 1
                    } else if item.attributes[.accessControl] != nil || item.data == nil {
                        summary.boundToThisKeychain += 1
                    } else {
                        entries.append(
                            BackupArchive.Entry(
                                itemClass: item.itemClass, attributes: item.attributes, data: item.data ?? Data()))
                    }
                }
            }
            let writer = try BackupWriter(to: sink, itemCount: entries.count, passphrase: passphrase, cost: cost)
            for entry in entries {
                try writer.append(entry)
                progress?(writer.written, entries.count)
            }
            try writer.finish()
            summary.itemCount = entries.count
            return summary
        }
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

    /// Restores an archive into this keychain, all or nothing: every message is read and checked before anything
    /// is written, then the writes go in one transaction. An archived item whose primary key is stored already is a
    /// conflict: with no policy the restore is refused naming them (``KeychainError/duplicateItem``); `.keep`,
    /// `.replace` and `.newer` decide per item.
    @discardableResult
    public func restore(
        from input: FileHandle, passphrase: Passcode, onConflict policy: RestoreConflictPolicy? = nil,
        progress: ((Int, Int) -> Void)? = nil
    ) throws(KeychainError) -> RestoreSummary {
        try perform("cannot restore the backup") { (connection, caller) throws(EngineError) -> RestoreSummary in
            let reader = try BackupReader(from: input, passphrase: passphrase)
            var entries: [BackupArchive.Entry] = []
            while let entry = try reader.next() {
                entries.append(entry)
                progress?(entries.count, reader.header.itemCount)
            }
            let backend = try connection.backend()
            var plan = try RestorePlan(entries: entries, backend: backend, caller: caller, policy: policy)
            guard !plan.writes.isEmpty else { return plan.summary }
            _ = try backend.perform(.writeAll(plan.writes), for: caller)
            plan.writes.removeAll()
            return plan.summary
        }
    }
}

/// The writes a restore makes, decided against what is stored.
private struct RestorePlan {
    var writes: [BackendRequest] = []
    var summary = RestoreSummary(added: 0, replaced: 0, kept: 0)

    init(
        entries: [BackupArchive.Entry], backend: any KeychainBackend, caller: Caller, policy: RestoreConflictPolicy?
    ) throws(EngineError) {
        var conflicts: [String] = []
        for entry in entries {
            var attributes = entry.attributes
            // The engine dates what it stores; the archived dates decide `.newer` only.
            attributes[.creationDate] = nil
            attributes[.modificationDate] = nil
            let newItem = NewItem(itemClass: entry.itemClass, attributes: attributes, data: entry.data)
            guard let stored = try Self.stored(matching: entry, backend: backend, caller: caller) else {
                writes.append(.add(newItem))
                summary.added += 1
                continue
            }
            switch policy {
            case nil: conflicts.append(Self.describe(entry))
            case .keep: summary.kept += 1
            case .replace, .newer:
                let archivedDate = entry.attributes[.modificationDate]?.dateValue ?? .distantPast
                let storedDate = stored.attributes[.modificationDate]?.dateValue ?? .distantPast
                if policy == .newer, archivedDate <= storedDate {
                    summary.kept += 1
                    continue
                }
                let query = ItemQuery(
                    itemClass: stored.itemClass, synchronizable: .any, persistentReference: stored.persistentReference)
                writes += [.delete(query), .add(newItem)]
                summary.replaced += 1
            }
        }
        guard conflicts.isEmpty else {
            throw EngineError(
                .duplicateItem,
                "\(conflicts.count) archived item(s) are stored already (give --on-conflict keep, replace or newer): "
                    + conflicts.prefix(20).joined(separator: "; "))
        }
    }

    /// The stored item with the entry's primary key, if any.
    private static func stored(
        matching entry: BackupArchive.Entry, backend: any KeychainBackend, caller: Caller
    ) throws(EngineError) -> Item? {
        var attributes = ItemAttributes()
        for attribute in entry.itemClass.primaryKey + [.accessGroup] {
            attributes[attribute] = entry.attributes[attribute]
        }
        let synchronizable = entry.attributes.bool(.synchronizable) ?? false
        let query = ItemQuery(
            itemClass: entry.itemClass, attributes: attributes, synchronizable: SynchronizableFilter(synchronizable),
            limit: .all, returning: [.attributes], authentication: ItemAuthentication(interaction: .skipItems))
        let candidates: [Item]
        do throws(EngineError) {
            candidates = try backend.copyMatching(query, for: caller)
        } catch  where error.code == .itemNotFound {
            return nil
        }
        // The query matched the attributes the entry has; the primary key also counts those it lacks (as empty).
        return candidates.first { candidate in
            entry.itemClass.primaryKey.allSatisfy { key(candidate.attributes[$0]) == key(entry.attributes[$0]) }
        }
    }

    /// A primary-key value as the engine compares it: text and its UTF-8 bytes alike, a missing one empty.
    private static func key(_ value: AttributeValue?) -> Data {
        switch value {
        case .string(let text): Data(text.utf8)
        case .data(let data): data
        case .integer(let number): number == 0 ? Data() : withUnsafeBytes(of: number.littleEndian) { Data($0) }
        case .bool, .date, nil: Data()
        }
    }

    /// An item as a conflict names it: its class and the attributes that identify it, never its data.
    private static func describe(_ entry: BackupArchive.Entry) -> String {
        let names = entry.itemClass.primaryKey.compactMap { attribute -> String? in
            guard let value = entry.attributes[attribute] else { return nil }
            switch value {
            case .string(let text): return "\(attribute.rawValue) \"\(text)\""
            case .data(let data): return "\(attribute.rawValue) \(data.count) bytes"
            default: return "\(attribute.rawValue) \(value)"
            }
        }
        return "\(entry.itemClass.rawValue) " + names.joined(separator: ", ")
    }
}
