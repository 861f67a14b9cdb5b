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
            // The batch's entries go to the store together (one flush, one transaction), then into the state.
            var outgoing: [Outgoing] = []
            for uuid in uuids.reversed() {
                do throws(SyncError) {
                    if let next = try outgoingChange(uuid, item: try localItem(uuid)) { outgoing.append(next) }
                } catch {
                    // A locked class: send what is ready, keep the cursor here and try again next time.
                    problems.append(error.message)
                    return sent + (try send(outgoing, problems: &problems))
                }
            }
            let count = try send(outgoing, problems: &problems)
            sent += count
            // A store that failed: what was not sent waits for the next pass, the cursor here.
            guard count == outgoing.count else { return sent }
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
            var outgoing: [Outgoing] = []
            for item in items {
                present.insert(item.persistentReference.uuid)
                if let next = try outgoingChange(item.persistentReference.uuid, item: item) { outgoing.append(next) }
                if outgoing.count >= 500 {
                    sent += try send(outgoing)
                    outgoing = []
                }
            }
            sent += try send(outgoing)
        }
        var outgoing: [Outgoing] = []
        for (_, item) in try state.items() {
            if let local = item.localUUID, !present.contains(local),
                let next = try outgoingChange(local, item: nil)
            {
                outgoing.append(next)
            }
        }
        return sent + (try send(outgoing))
    }

    /// An entry to send for a local item, and the item's sync state once it is sent.
    private struct Outgoing {
        var draft: LogDraft
        var item: SyncDatabase.ItemState
    }

    /// Appends the entries of `outgoing` together (``appendAll(_:)``), then saves the state of each item sent.
    /// Returns how many entries were written; a store that failed is reported in `problems`.
    private func send(_ outgoing: [Outgoing], problems: inout [String]) throws(SyncError) -> Int {
        guard !outgoing.isEmpty else { return 0 }
        let (count, failure) = try appendAll(outgoing.map(\.draft))
        for change in outgoing.prefix(count) { try state.save(change.item) }
        if let failure { problems.append(failure.message) }
        return count
    }

    /// ``send(_:problems:)`` where a store's failure ends the pass (sending every item, after the feed lost track).
    private func send(_ outgoing: [Outgoing]) throws(SyncError) -> Int {
        guard !outgoing.isEmpty else { return 0 }
        let (count, failure) = try appendAll(outgoing.map(\.draft))
        for change in outgoing.prefix(count) { try state.save(change.item) }
        if let failure { throw failure }
        return count
    }

    /// What to send for one local item (`nil`: it is gone): a version, a tombstone, or nothing.
    private func outgoingChange(_ localUUID: UUID, item: Item?) throws(SyncError) -> Outgoing? {
        let mapped = try state.item(local: localUUID)
        guard let item, SyncScope.includes(item) else {
            // Deleted, or no longer synchronizable: the sync item is deleted everywhere.
            guard var mapped, !mapped.isDead else { return nil }
            let uuid = mapped.uuid
            mapped.isDead = true
            mapped.localUUID = nil
            return Outgoing(
                draft: LogDraft(kind: .tombstone) { entry in entry.item = SealedVersion(uuid: uuid) }, item: mapped)
        }
        let content = ItemContent(item)
        let hash = try contentHash(content)
        if var mapped {
            if mapped.isDead {
                // Deleted in the circle: a tombstone is final, so the local copy goes too.
                try deleteLocal(localUUID)
                mapped.localUUID = nil
                try state.save(mapped)
                return nil
            }
            if mapped.appliedHash == hash { return nil }
            mapped.appliedHash = hash
            return Outgoing(draft: try versionDraft(of: mapped.uuid, content), item: mapped)
        }
        var uuid = localUUID
        if try state.item(uuid) != nil { uuid = UUID() }
        return Outgoing(
            draft: try versionDraft(of: uuid, content),
            item: SyncDatabase.ItemState(
                uuid: uuid, localUUID: localUUID, appliedHash: hash, keyHash: nil, isDead: false, winnerAuthor: nil,
                winnerSequence: nil))
    }

    /// The entry of a new version of `uuid` holding `content`, sealed under the current epoch's key once its
    /// place and clock are known.
    private func versionDraft(of uuid: UUID, _ content: ItemContent) throws(SyncError) -> LogDraft {
        guard let epoch = currentEpoch, let keys = try epochKeys(epoch, for: content.keyClass) else {
            throw SyncError(.notTrusted, "this device holds no key of the circle's current epoch yet")
        }
        let author = deviceID
        return LogDraft(kind: .item) { (entry) throws(SyncError) in
            entry.item = try ItemSealing.seal(content, uuid: uuid, keys: keys, author: author, clock: entry.clock)
        }
    }
}
