import Foundation

extension SyncDevice {
    /// Why `entry` (verified: signed by its author, in its place) breaks its author's chain as this device has
    /// verified it, or `nil` when it fits (issue 21, item 1): each entry of the second format names the hash of the
    /// author's previous one, each author's clocks strictly increase, and no author shows two bodies under one
    /// sequence. A fault proves the author signed two histories (or went back in time): it is refused from the
    /// lower of the two places involved, so that neither of them counts (which one is forged cannot be known here).
    func chainFault(
        _ entry: LogEntry, bytes: [UInt8], hash: Data
    ) throws(SyncError) -> (reason: String, from: Int64)? {
        let author = entry.author
        if let kept = try state.link(of: author, at: entry.sequence) {
            return kept.hash == hash ? nil : ("two different entries at sequence \(entry.sequence)", entry.sequence)
        }
        if entry.sequence == 1, let previous = entry.previous, !previous.isEmpty {
            return ("its first entry names a previous one", 1)
        }
        if let below = try state.link(of: author, at: entry.sequence, .below) {
            guard entry.clock > below.clock else {
                return (
                    "its clock went back at sequence \(entry.sequence) (\(entry.clock) after \(below.clock))",
                    below.sequence
                )
            }
            if below.sequence == entry.sequence - 1, let previous = entry.previous, previous != below.hash {
                return (
                    "sequence \(entry.sequence) follows another entry \(below.sequence) than the one kept",
                    below.sequence
                )
            }
            if below.previous != nil, entry.previous == nil {
                return ("sequence \(entry.sequence) names no previous entry after chained ones", entry.sequence)
            }
        }
        if let above = try state.link(of: author, at: entry.sequence, .above) {
            guard entry.clock < above.clock else {
                return (
                    "its clock went back at sequence \(above.sequence) (\(above.clock) after \(entry.clock))",
                    entry.sequence
                )
            }
            if above.sequence == entry.sequence + 1, let previous = above.previous, previous != hash {
                return (
                    "sequence \(above.sequence) follows another entry \(entry.sequence) than the one read now",
                    entry.sequence
                )
            }
            if entry.previous != nil, above.previous == nil {
                return ("sequence \(above.sequence) names no previous entry after chained ones", entry.sequence)
            }
        }
        return nil
    }

    /// Keeps a verified entry and its place in the chain, unless it breaks the chain: then its author is refused
    /// from that sequence on, and the reason is returned.
    func keep(_ entry: LogEntry, bytes: [UInt8]) throws(SyncError) -> (isNew: Bool, fault: String?) {
        let hash = try EntryHash.of(bytes)
        if let fault = try chainFault(entry, bytes: bytes, hash: hash) {
            try state.refuse(entry.author, from: fault.from, reason: fault.reason)
            return (false, fault.reason)
        }
        let link = SyncDatabase.Link(sequence: entry.sequence, hash: hash, clock: entry.clock, previous: entry.previous)
        let isNew = try state.transaction { () throws(SyncError) -> Bool in
            try state.saveLink(author: entry.author, link)
            return try state.insert(entry, bytes: bytes)
        }
        return (isNew, nil)
    }

    /// The hash this device's next entry names as its previous: its entry at `sequence - 1` (empty for the first;
    /// `nil` when that entry is gone from this device's state, which only a device upgraded after losing it meets).
    func previousHash(before sequence: Int64) throws(SyncError) -> Data? {
        guard sequence > 1 else { return Data() }
        return try state.link(of: deviceID, at: sequence - 1)?.hash
    }
}
