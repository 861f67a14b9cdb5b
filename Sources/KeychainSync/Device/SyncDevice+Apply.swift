import Foundation
import KeychainCore

extension SyncDevice {
    /// Makes the keychain show what the replica says, for every sync item: deleted items go, each live item's
    /// winning version is written, and of two live items with one primary key only the lower UUID is shown (the
    /// other is kept as history). Returns how many local items changed.
    func applyReplica(_ trust: TrustState, bounds: ClockBounds, problems: inout [String]) throws(SyncError) -> Int {
        var applied = 0
        var byItem: [String: [SyncDatabase.StoredEntry]] = [:]
        for entry in try state.entries(kinds: [.item, .tombstone])
        where trust.accepts(author: entry.author, sequence: entry.sequence) {
            if let subject = entry.subject { byItem[subject, default: []].append(entry) }
        }
        var states = try state.items()
        // An item shown from versions that no longer count (their author was refused from there on) goes, until a
        // version that counts shows it again.
        for (uuid, var item) in states
        where !item.isDead && item.winnerAuthor != nil && byItem[uuid.uuidString] == nil {
            if let local = item.localUUID {
                try deleteLocal(local)
                applied += 1
            }
            item.localUUID = nil
            item.winnerAuthor = nil
            item.winnerSequence = nil
            item.keyHash = nil
            item.appliedHash = nil
            try state.save(item)
            states[uuid] = item
        }
        // The versions this pass takes are opened first, together (openAll(_:)): those of items whose winner
        // changed.
        var winners: [SyncDatabase.StoredEntry] = []
        for (subject, entries) in byItem {
            guard let uuid = UUID(uuidString: subject),
                case .live(let winner)? = ItemResolution.resolve(entries, bounds: bounds)
            else { continue }
            let item = states[uuid]
            if item == nil || item?.isDead == true || item?.winnerAuthor != winner.author
                || item?.winnerSequence != winner.sequence || item?.keyHash == nil
            {
                winners.append(winner)
            }
        }
        let prepared = openAll(winners)
        var opened: [UUID: ItemContent] = [:]
        var decided = 0
        for (subject, entries) in byItem {
            decided += 1
            passProgress?(SyncProgress(phase: .applying, done: decided, total: byItem.count))
            guard let uuid = UUID(uuidString: subject), let resolution = ItemResolution.resolve(entries, bounds: bounds)
            else {
                continue
            }
            var item =
                states[uuid]
                ?? SyncDatabase.ItemState(
                    uuid: uuid, localUUID: nil, appliedHash: nil, keyHash: nil, isDead: false, winnerAuthor: nil,
                    winnerSequence: nil)
            switch resolution {
            case .dead:
                guard !item.isDead || item.localUUID != nil else { continue }
                if let local = item.localUUID {
                    try deleteLocal(local)
                    applied += 1
                }
                item.isDead = true
                item.localUUID = nil
                try state.save(item)
                states[uuid] = item
            case .live(let winner):
                guard
                    item.isDead || item.winnerAuthor != winner.author || item.winnerSequence != winner.sequence
                        || item.keyHash == nil
                else { continue }
                // Records that reappear with a live winner and no tombstone bring the item back.
                item.isDead = false
                do throws(SyncError) {
                    let content: ItemContent
                    if let result = prepared[RecordName.log(winner.author, winner.sequence)] {
                        content = try result.get()
                    } else {
                        content = try open(winner)
                    }
                    opened[uuid] = content
                    item.keyHash = try keyHash(content)
                    item.winnerAuthor = winner.author
                    item.winnerSequence = winner.sequence
                    try state.save(item)
                    states[uuid] = item
                } catch {
                    problems.append(error.message)
                }
            }
        }
        // Of the live items sharing a primary key, the lowest UUID is shown.
        var shown: [Data: UUID] = [:]
        for (uuid, item) in states where !item.isDead && item.winnerAuthor != nil {
            guard let key = item.keyHash else { continue }
            if let other = shown[key], other.uuidString < uuid.uuidString { continue }
            shown[key] = uuid
        }
        let chosen = Set(shown.values)
        for (uuid, var item) in states where !item.isDead && !chosen.contains(uuid) {
            guard let local = item.localUUID, item.winnerAuthor != nil else { continue }
            try deleteLocal(local)
            applied += 1
            item.localUUID = nil
            item.appliedHash = nil
            try state.save(item)
        }
        var planned: [PlannedWrite] = []
        // Sorted by their text, made once each (the profile found it made in every comparison).
        for uuid in chosen.map({ ($0.uuidString, $0) }).sorted(by: { $0.0 < $1.0 }).map(\.1) {
            guard var item = states[uuid] else { continue }
            guard item.localUUID == nil || opened[uuid] != nil else { continue }
            do throws(SyncError) {
                let content: ItemContent
                if let known = opened[uuid] {
                    content = known
                } else {
                    guard let author = item.winnerAuthor, let sequence = item.winnerSequence,
                        let winner = try state.entries(subject: uuid.uuidString).first(where: {
                            $0.author == author && $0.sequence == sequence
                        })
                    else { continue }
                    content = try open(winner)
                }
                if let write = try plannedWrite(of: content, to: &item) {
                    planned.append(PlannedWrite(item: item, content: content, request: write))
                } else {
                    try state.save(item)
                }
            } catch {
                problems.append(error.message)
            }
        }
        return applied + (try carryOut(planned, problems: &problems))
    }

    /// A version's content to write to the local item of a sync item, and the write that does it.
    private struct PlannedWrite {
        var item: SyncDatabase.ItemState
        var content: ItemContent
        var request: BackendRequest
    }

    /// The write that makes the local item of `item` hold `content`: an update of it, or an add when there is none;
    /// `nil` when it holds that already (its applied hash is then set).
    private func plannedWrite(
        of content: ItemContent, to item: inout SyncDatabase.ItemState
    ) throws(SyncError) -> BackendRequest? {
        guard let local = item.localUUID, let current = try localItem(local) else { return addRequest(content) }
        let currentHash = try contentHash(ItemContent(current))
        if currentHash == (try contentHash(content)) {
            item.appliedHash = currentHash
            return nil
        }
        // Changed here since this device last sent or wrote it (an edit made during this pass): not overwritten
        // now; the next pass sends it, and the clock decides between the two.
        if let applied = item.appliedHash, applied != currentHash {
            throw SyncError(.deferred, "item \(item.uuid) has a local change to send first")
        }
        return updateRequest(local, to: content)
    }

    /// Carries out the pass's writes to the keychain in one transaction and one sync (``BackendRequest/writeEach(_:)``),
    /// each alone in its effect, and records what each stored: the hash of the item as the write itself stored it,
    /// so a user's edit just after it is never taken for sync's. Returns how many local items changed.
    private func carryOut(_ planned: [PlannedWrite], problems: inout [String]) throws(SyncError) -> Int {
        guard !planned.isEmpty else { return 0 }
        let outcomes: [Result<WriteResult, EngineError>]
        do throws(EngineError) {
            outcomes = try backend.writeEach(planned.map(\.request), for: Self.caller)
        } catch {
            problems.append(SyncError(error, "cannot write \(planned.count) synced items to the keychain").message)
            return 0
        }
        var applied = 0
        for (write, outcome) in zip(planned, outcomes) {
            var item = write.item
            switch outcome {
            case .success(let result):
                guard var stored = result.items.first else { continue }
                stored.data = write.content.data
                item.localUUID = stored.persistentReference.uuid
                item.appliedHash = try contentHash(ItemContent(stored))
                try state.save(item)
                applied += 1
            case .failure(let error) where error.code == .duplicateItem:
                // A local item with this key was made since the changes were sent: it is sent next time, and the
                // lower UUID wins then.
                problems.append("item \(item.uuid) waits for a local item with its key to be sent")
            case .failure(let error):
                problems.append(SyncError(error, "cannot write synced item \(item.uuid) to the keychain").message)
            }
        }
        return applied
    }

    /// Opens a stored item version with its epoch's keys, and refuses one outside sync's scope or sealed under the
    /// wrong class key.
    func open(_ stored: SyncDatabase.StoredEntry) throws(SyncError) -> ItemContent {
        let name = RecordName.log(stored.author, stored.sequence)
        let entry: LogEntry
        if let decoded = passEntries?[name], decoded.bytes == stored.bytes {
            entry = decoded.entry
        } else {
            entry = try SignedRecord.unverifiedBody(LogEntry.self, stored.bytes, name: name)
        }
        guard let version = entry.item, let epoch = version.epoch else {
            throw SyncError(.damaged, "the record \(name) holds no item version")
        }
        guard let keyClass = version.keyClass else {
            throw SyncError(.damaged, "the record \(name) names no key class")
        }
        guard let keys = try epochKeys(epoch, for: keyClass) else {
            throw SyncError(
                .notTrusted, "the record \(name) is sealed under epoch \(epoch), not shared with this device")
        }
        return try Self.open(entry, name: name, keys: keys)
    }

    /// Opens the item version of `entry` (the record `name`) with its epoch's `keys`, as ``open(_:)`` does: on any
    /// thread, touching no state.
    static func open(_ entry: LogEntry, name: String, keys: EpochKeys) throws(SyncError) -> ItemContent {
        guard let version = entry.item else {
            throw SyncError(.damaged, "the record \(name) holds no item version")
        }
        let content = try ItemSealing.open(version, keys: keys, author: entry.author, clock: entry.clock, name: name)
        // Its author's build decided what to send; this device decides what it takes.
        if let reason = SyncScope.reasonExcluded(content.itemClass, content.attributes) {
            throw SyncError(.notTrusted, "the version of item \(version.uuid) in \(name) does not sync: \(reason)")
        }
        // An `ak` item sealed under the `ck` key would open whenever the keychain has been unlocked once.
        guard version.keyClass == content.keyClass else {
            throw SyncError(
                .notTrusted,
                "the version of item \(version.uuid) in \(name) is sealed under the "
                    + "\(version.keyClass?.rawValue ?? "missing") key but its accessibility needs the "
                    + "\(content.keyClass.rawValue) key")
        }
        return content
    }
}
