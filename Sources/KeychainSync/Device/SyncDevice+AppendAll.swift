import Foundation
import KeychainCore

extension SyncDevice {
    /// An entry to append: its kind, and what fills it in once its place and clock are known (it may run again
    /// for another place, when the first one is taken).
    struct LogDraft {
        var kind: LogEntry.Kind
        var fill: (inout LogEntry) throws(SyncError) -> Void
    }

    /// Appends `drafts` to this device's log as ``append(_:_:)`` does each, in order, chained and signed, written
    /// to the store together (``SyncStore/putAllIfAbsent(_:)``: one flush on a folder store, one transaction on
    /// PostgreSQL) and then recorded in the sync state together. When a name is taken (another copy of this device
    /// wrote it: a restored backup), reads that log again and appends the rest after it.
    ///
    /// - Returns: how many of `drafts`, from the first, were appended (and recorded), and the store's failure
    ///   that stopped the rest, if one did: as with ``append(_:_:)`` one at a time, what reached the store is
    ///   recorded before the failure is told.
    func appendAll(_ drafts: [LogDraft]) throws(SyncError) -> (count: Int, failure: SyncError?) {
        var appended = 0
        var remaining = drafts[...]
        for _ in 0..<8 {
            guard !remaining.isEmpty else { return (appended, nil) }
            var sequence = max(try state.lastSequence(of: deviceID), storeHighestSequences[deviceID] ?? 0) + 1
            var previous = try previousHash(before: sequence)
            var sealed: [(entry: LogEntry, name: String, bytes: [UInt8], hash: Data)] = []
            for draft in remaining {
                clock = HybridLogicalClock.tick(after: clock, wall: options.now())
                var entry = LogEntry(author: deviceID, sequence: sequence, clock: clock, kind: draft.kind)
                entry.previous = previous
                try draft.fill(&entry)
                let name = RecordName.log(deviceID, sequence)
                let bytes = try SignedRecord.seal(entry, name: name, signer: identity.signing)
                let hash = try EntryHash.of(bytes)
                sealed.append((entry, name, bytes, hash))
                previous = hash
                sequence += 1
            }
            let records = sealed.map { (name: $0.name, bytes: $0.bytes) }
            var failure: SyncError?
            var written: Int
            do throws(SyncError) {
                written = try storeCall { () throws(SyncStoreError) -> Int in try store.putAllIfAbsent(records) }
            } catch {
                // Some of the batch may be in the store: find how far, as one put at a time would have known.
                (written, failure) = writtenBefore(error, records)
            }
            if written > 0 {
                let kept = sealed.prefix(written)
                try state.transaction { () throws(SyncError) in
                    for record in kept {
                        let link = SyncDatabase.Link(
                            sequence: record.entry.sequence, hash: record.hash, clock: record.entry.clock,
                            previous: record.entry.previous)
                        try state.saveLink(author: deviceID, link)
                        try state.insert(record.entry, bytes: record.bytes)
                    }
                    try state.setInteger(clock.rawValue, for: Meta.clock)
                }
                storeHighestSequences[deviceID] = kept.last?.entry.sequence
                appended += written
                remaining = remaining.dropFirst(written)
            }
            if let failure { return (appended, failure) }
            if written < sealed.count {
                try pull()
                storeHighestSequences[deviceID] = max(
                    storeHighestSequences[deviceID] ?? 0, sealed[written].entry.sequence)
            }
        }
        guard remaining.isEmpty else {
            throw SyncError(.store(.damaged), "cannot find a free place in this device's log in the store")
        }
        return (appended, nil)
    }

    /// After a batch write failed with `error`: puts the batch's records again one at a time, in order, each
    /// counting as written when it is stored now or already holds these very bytes (the failed write stored it),
    /// up to the first that is neither or fails. Returns how many were written, and the failure that stopped them.
    private func writtenBefore(
        _ error: SyncError, _ records: [(name: String, bytes: [UInt8])]
    ) -> (Int, SyncError) {
        var written = 0
        for record in records {
            do throws(SyncError) {
                let isOurs = try storeCall { () throws(SyncStoreError) -> Bool in
                    if try store.putIfAbsent(record.name, record.bytes) { return true }
                    return try store.get(record.name) == record.bytes
                }
                guard isOurs else { break }
            } catch {
                return (written, error)
            }
            written += 1
        }
        return (written, error)
    }
}
