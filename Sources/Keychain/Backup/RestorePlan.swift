import Foundation
import KeychainCore

/// What a restore writes for each archived item, decided against what is stored, and what it did.
struct RestorePlan {
    /// The most conflicts a refusal names (it counts them all).
    static let namedConflicts = 20

    let policy: RestoreConflictPolicy?
    private(set) var summary = RestoreSummary(added: 0, replaced: 0, kept: 0)
    private var conflictCount = 0
    private var namedConflicts: [String] = []

    init(policy: RestoreConflictPolicy?) {
        self.policy = policy
    }

    /// The writes that restore `entry`, given the stored item with its primary key (if any).
    mutating func writes(for entry: BackupArchive.Entry, stored: Item?) -> [BackendRequest] {
        let newItem = Self.newItem(entry)
        guard let stored else {
            summary.added += 1
            return [.add(newItem)]
        }
        switch policy {
        case nil:
            conflictCount += 1
            if namedConflicts.count < Self.namedConflicts { namedConflicts.append(Self.describe(entry)) }
            return []
        case .keep:
            summary.kept += 1
            return []
        case .replace, .newer:
            let archivedDate = entry.attributes[.modificationDate]?.dateValue ?? .distantPast
            let storedDate = stored.attributes[.modificationDate]?.dateValue ?? .distantPast
            if policy == .newer, archivedDate <= storedDate {
                summary.kept += 1
                return []
            }
            let query = ItemQuery(
                itemClass: stored.itemClass, synchronizable: .any, persistentReference: stored.persistentReference)
            summary.replaced += 1
            return [.delete(query), .add(newItem)]
        }
    }

    /// The item an entry restores as.
    static func newItem(_ entry: BackupArchive.Entry) -> NewItem {
        var attributes = entry.attributes
        // The engine dates what it stores; the archived dates decide `.newer` only.
        attributes[.creationDate] = nil
        attributes[.modificationDate] = nil
        return NewItem(itemClass: entry.itemClass, attributes: attributes, data: entry.data)
    }

    /// Counts an entry added without looking for a stored one first (its add met no conflict).
    mutating func added() {
        summary.added += 1
    }

    /// Throws errSecDuplicateItem naming the conflicts, when there were some and no policy decides them.
    func checkConflicts() throws(EngineError) {
        guard conflictCount > 0 else { return }
        throw EngineError(
            .duplicateItem,
            "\(conflictCount) archived item(s) are stored already (give --on-conflict keep, replace or newer): "
                + namedConflicts.joined(separator: "; ") + (conflictCount > namedConflicts.count ? "; …" : ""))
    }

    /// The stored item with the entry's primary key, if any, found by `copyMatching` (the backend's, or a write
    /// session's that sees the restore's own writes).
    static func stored(
        matching entry: BackupArchive.Entry, copyMatching: (ItemQuery) throws(EngineError) -> [Item]
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
            candidates = try copyMatching(query)
        } catch  where error.code == .itemNotFound {
            return nil
        } catch {
            throw error
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
