import Foundation
import KeychainCore

extension SyncDevice {
    /// Writes an acknowledgment when this device has read other devices' entries (acknowledgments aside, or two
    /// devices would answer each other forever) that its last one did not cover, or a version it finds dated too far
    /// ahead (``ClockBounds``): how far it has read each log (every sequence up to the cursor read, or deleted by a
    /// compaction), the hash of the entry each cursor stands on, and at what time.
    func acknowledge(_ trust: TrustState, bounds: ClockBounds) throws(SyncError) -> Int {
        let cursors = try readCursors()
        let previous = try latestAcknowledgments()[deviceID] ?? [:]
        var advanced = false
        for (author, cursor) in cursors where author != deviceID && cursor > (previous[author] ?? 0) {
            if try state.hasEntries(of: author, after: previous[author] ?? 0, through: cursor, besides: .acknowledgment)
            {
                advanced = true
                break
            }
        }
        // Tombstones, to be compacted once all have read them; exclusions, so that which of two exclusions each
        // member read first is on record (``ExclusionResolver``).
        let uncovered = try state.entries(kinds: [.tombstone, .exclusion]).contains { entry in
            entry.author != deviceID && trust.accepts(author: entry.author, sequence: entry.sequence)
                && entry.sequence <= (cursors[entry.author] ?? 0)
                && entry.sequence > (previous[entry.author] ?? 0)
        }
        if !uncovered && !advanced {
            guard try owesClockVerdict(trust, bounds: bounds) else { return 0 }
        }
        var heads: [String: Data] = [:]
        for (author, cursor) in cursors where cursor > 0 {
            heads[author] = try state.link(of: author, at: cursor)?.hash
        }
        try append(.acknowledgment) { entry in
            entry.cursors = cursors
            entry.heads = heads
        }
        return 1
    }

    /// Deletes from the store what every member has acknowledged the end of: this device's versions of deleted
    /// items, and its tombstones once no version of their item is left in the store (a device that joins later
    /// must not find a version without its tombstone). A compaction entry listing them is written first, so a
    /// device that had not read them learns it is past the horizon and resyncs instead of bringing them back.
    func compact(_ trust: TrustState) throws(SyncError) -> Int {
        let acknowledgments = try latestAcknowledgments()
        let own = storeLogs[deviceID] ?? []
        var byItem: [String: [SyncDatabase.StoredEntry]] = [:]
        for entry in try state.entries(kinds: [.item, .tombstone]) {
            if let subject = entry.subject { byItem[subject, default: []].append(entry) }
        }
        var removed: [Int64] = []
        for (_, entries) in byItem {
            let acknowledged = entries.contains { tombstone in
                tombstone.kind == .tombstone && trust.accepts(author: tombstone.author, sequence: tombstone.sequence)
                    && trust.members.keys.allSatisfy { member in
                        member == tombstone.author
                            || (acknowledgments[member]?[tombstone.author] ?? 0) >= tombstone.sequence
                    }
            }
            guard acknowledged else { continue }
            let versions = entries.filter { $0.kind == .item && $0.author == deviceID && own.contains($0.sequence) }
            removed += versions.map(\.sequence)
            let othersLeft = entries.contains { entry in
                !(entry.author == deviceID && (entry.kind == .tombstone || entry.kind == .item))
                    && (storeLogs[entry.author]?.contains(entry.sequence) ?? false)
            }
            guard !othersLeft else { continue }
            removed += entries.filter { $0.kind == .tombstone && $0.author == deviceID && own.contains($0.sequence) }
                .map(\.sequence)
        }
        guard !removed.isEmpty else { return 0 }
        removed.sort()
        try append(.compaction) { entry in entry.removed = removed }
        for sequence in removed {
            let name = RecordName.log(deviceID, sequence)
            try storeCall { () throws(SyncStoreError) in try store.delete(name) }
            storeLogs[deviceID]?.remove(sequence)
        }
        return 1
    }

    /// Rebuilds this device's view after it was past the tombstone horizon (offline while deleted items' records
    /// were compacted away, or restored from an old copy): forgets the item records that admitted compactions
    /// deleted, and removes from the keychain every synced item left with none (compaction only removes deleted
    /// items' records), rather than sending it back. Returns how many local items it removed.
    ///
    /// Only what a signed compaction names goes (found by review: a listing the store made short dropped every
    /// record it omitted, and their items for good).
    func resync() throws(SyncError) -> Int {
        var removed = 0
        let trust = try trust()
        var compacted: [String: Set<Int64>] = [:]
        for compaction in try decoded(.compaction)
        where trust.accepts(author: compaction.author, sequence: compaction.sequence) {
            compacted[compaction.author, default: []].formUnion(compaction.removed ?? [])
        }
        try state.transaction { () throws(SyncError) in
            for entry in try state.entries(kinds: [.item, .tombstone])
            where compacted[entry.author]?.contains(entry.sequence) ?? false {
                try state.deleteEntry(author: entry.author, sequence: entry.sequence)
            }
            for (uuid, var item) in try state.items() where !item.isDead {
                guard try state.entries(subject: uuid.uuidString).isEmpty else { continue }
                if let local = item.localUUID {
                    try deleteLocal(local)
                    removed += 1
                }
                item.isDead = true
                item.localUUID = nil
                try state.save(item)
            }
            try state.setInteger(0, for: Meta.needsResync)
        }
        return removed
    }

    /// How far this device has read each log: for each author, the highest sequence up to which every entry is in
    /// the replica or was deleted by one of the author's compactions.
    func readCursors() throws(SyncError) -> [String: Int64] {
        var covered = try state.sequences()
        for compaction in try decoded(.compaction) {
            covered[compaction.author, default: []].formUnion(compaction.removed ?? [])
        }
        var cursors: [String: Int64] = [:]
        for (author, sequences) in covered {
            var cursor: Int64 = 0
            while sequences.contains(cursor + 1) { cursor += 1 }
            cursors[author] = cursor
        }
        return cursors
    }

    /// Each device's newest acknowledgment.
    func latestAcknowledgments() throws(SyncError) -> [String: [String: Int64]] {
        var latest: [String: (Int64, [String: Int64])] = [:]
        for entry in try decoded(.acknowledgment) where entry.sequence > (latest[entry.author]?.0 ?? 0) {
            latest[entry.author] = (entry.sequence, entry.cursors ?? [:])
        }
        return latest.mapValues(\.1)
    }

    func decoded(_ kind: LogEntry.Kind) throws(SyncError) -> [LogEntry] {
        try state.entries(kinds: [kind]).compactMap { stored in
            try? SignedRecord.unverifiedBody(
                LogEntry.self, stored.bytes, name: RecordName.log(stored.author, stored.sequence))
        }
    }
}
