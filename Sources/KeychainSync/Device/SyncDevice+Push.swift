import Foundation
import KeychainCore

extension SyncDevice {
    /// Sends this keychain's changes since the feed cursor: a new version for each synchronizable item added or
    /// changed (unless it holds what sync itself wrote there), a tombstone for each one deleted or moved out of
    /// scope. Local and this-device-only items are never read. Returns how many entries were written.
    func pushLocalChanges(problems: inout [String]) throws(SyncError) -> Int {
        var cursor = try state.integer(Meta.feedCursor) ?? 0
        var sent = 0
        while true {
            let batch: ChangeBatch
            do throws(EngineError) {
                batch = try backend.changes(since: cursor, for: Self.caller, limit: 500)
            } catch {
                guard let resync = error.resyncSequence else { throw SyncError(error, "cannot read the change feed") }
                sent += try pushAllItems()
                cursor = resync
                try state.setInteger(cursor, for: Meta.feedCursor)
                continue
            }
            // The latest change of each item decides: the item is read as it is now.
            var seen: Set<UUID> = []
            var uuids: [UUID] = []
            for change in batch.changes.reversed() where seen.insert(change.persistentReference.uuid).inserted {
                let isMapped = try state.item(local: change.persistentReference.uuid) != nil
                if SyncScope.mayInclude(change) || isMapped {
                    uuids.append(change.persistentReference.uuid)
                }
            }
            for uuid in uuids.reversed() {
                do throws(SyncError) {
                    sent += try pushLocal(uuid, item: try localItem(uuid))
                } catch {
                    // A locked class: keep the cursor here and try again next time.
                    problems.append(error.message)
                    return sent
                }
            }
            cursor = batch.cursor
            try state.setInteger(cursor, for: Meta.feedCursor)
            if !batch.hasMore { return sent }
        }
    }

    /// Sends every synchronizable item, and tombstones for mapped items that are gone (when the feed lost track).
    private func pushAllItems() throws(SyncError) -> Int {
        var sent = 0
        var present: Set<UUID> = []
        for itemClass in SyncScope.classes {
            let query = ItemQuery(
                itemClass: itemClass, synchronizable: .synchronizableOnly, limit: .all, returning: [.attributes, .data])
            let items: [Item]
            do throws(EngineError) {
                items = try backend.copyMatching(query, for: Self.caller)
            } catch {
                if error.code == .itemNotFound { continue }
                throw SyncError(error, "cannot read the keychain's synchronizable items")
            }
            for item in items {
                present.insert(item.persistentReference.uuid)
                sent += try pushLocal(item.persistentReference.uuid, item: item)
            }
        }
        for (_, item) in try state.items() {
            if let local = item.localUUID, !present.contains(local) { sent += try pushLocal(local, item: nil) }
        }
        return sent
    }

    /// Sends the state of one local item (`nil`: it is gone).
    private func pushLocal(_ localUUID: UUID, item: Item?) throws(SyncError) -> Int {
        let mapped = try state.item(local: localUUID)
        guard let item, SyncScope.includes(item) else {
            // Deleted, or no longer synchronizable: the sync item is deleted everywhere.
            guard var mapped, !mapped.isDead else { return 0 }
            try append(.tombstone) { entry in entry.item = SealedVersion(uuid: mapped.uuid) }
            mapped.isDead = true
            mapped.localUUID = nil
            try state.save(mapped)
            return 1
        }
        let content = ItemContent(item)
        let hash = try contentHash(content)
        if var mapped {
            if mapped.isDead {
                // Deleted in the circle: a tombstone is final, so the local copy goes too.
                try deleteLocal(localUUID)
                mapped.localUUID = nil
                try state.save(mapped)
                return 0
            }
            if mapped.appliedHash == hash { return 0 }
            try appendVersion(of: mapped.uuid, content)
            mapped.appliedHash = hash
            try state.save(mapped)
            return 1
        }
        var uuid = localUUID
        if try state.item(uuid) != nil { uuid = UUID() }
        try appendVersion(of: uuid, content)
        try state.save(
            SyncDatabase.ItemState(
                uuid: uuid, localUUID: localUUID, appliedHash: hash, keyHash: nil, isDead: false, winnerAuthor: nil,
                winnerSequence: nil))
        return 1
    }

    private func appendVersion(of uuid: UUID, _ content: ItemContent) throws(SyncError) {
        guard let epoch = currentEpoch, let keys = try epochKeys(epoch, for: content.keyClass) else {
            throw SyncError(.notTrusted, "this device holds no key of the circle's current epoch yet")
        }
        try append(.item) { (entry) throws(SyncError) in
            entry.item = try ItemSealing.seal(content, uuid: uuid, keys: keys, author: deviceID, clock: entry.clock)
        }
    }
}
