import Foundation

extension Engine {
    /// The most changes one page of the feed returns, whatever the caller asks.
    public static let maximumChangeBatch = 10_000

    /// The changes after `sequence` that `caller` may see (its access groups), oldest first, at most `limit`;
    /// attributes only, readable in every lock state. Throws the resync error
    /// (``EngineError/resyncSequence`` set) when the changes after `sequence` are no longer all kept.
    public func changes(since sequence: Int64, for caller: Caller, limit: Int) throws(EngineError) -> ChangeBatch {
        guard limit >= 1 else { throw .param("the change feed's page limit \(limit) is not positive") }
        let limit = min(limit, Self.maximumChangeBatch)
        return try state.withLock { (state) throws(EngineError) -> ChangeBatch in
            try state.checkServable()
            let (records, hasMore) = try state.store.changeLog.records(after: sequence, limit: limit)
            let visible = try ChangeVisibility(caller: caller, index: state.keybag.blindIndex)
            var changes: [ItemChange] = []
            for record in records where visible.includes(record) {
                changes.append(try ItemChange(record))
            }
            return ChangeBatch(changes: changes, cursor: records.last?.sequence ?? sequence, hasMore: hasMore)
        }
    }

    /// The newest change's sequence: a reader that starts following now passes it to ``changes(since:for:limit:)``.
    public func latestChangeSequence() throws(EngineError) -> Int64 {
        try state.withLock { (state) throws(EngineError) -> Int64 in
            try state.checkServable()
            return try state.store.changeLog.newestSequence()
        }
    }

    /// The changes after `sequence` that `caller` may see, as ``changes(since:for:limit:)`` gives them, but with
    /// nothing of other groups' activity: the page is cut at `limit` changes the caller sees (not at records
    /// examined, so `hasMore` is `true` only then), and at the end the cursor is the caller's own last change, or
    /// `sequence`, or the compaction horizon if later (which moves in steps of ``ChangeLog/compactionInterval``
    /// changes, so a cursor never falls behind what the feed keeps). keychaind answers every caller with it: a
    /// cursor that followed every write would tell one app when another writes.
    package func confinedChanges(since sequence: Int64, for caller: Caller, limit: Int) throws(EngineError)
        -> ChangeBatch
    {
        guard limit >= 1 else { throw .param("the change feed's page limit \(limit) is not positive") }
        let limit = min(limit, Self.maximumChangeBatch)
        return try state.withLock { (state) throws(EngineError) -> ChangeBatch in
            try state.checkServable()
            let visible = try ChangeVisibility(caller: caller, index: state.keybag.blindIndex)
            var changes: [ItemChange] = []
            var position = sequence
            while true {
                let (records, hasMore) = try state.store.changeLog.records(after: position, limit: limit)
                for record in records where visible.includes(record) {
                    changes.append(try ItemChange(record))
                    if changes.count == limit {
                        return ChangeBatch(changes: changes, cursor: record.sequence, hasMore: true)
                    }
                }
                position = records.last?.sequence ?? position
                guard hasMore else { break }
            }
            let horizon = try state.store.changeLog.counter().horizon
            return ChangeBatch(
                changes: changes, cursor: max(changes.last?.sequence ?? sequence, horizon), hasMore: false)
        }
    }

    /// Where `caller` starts following the feed with ``confinedChanges(since:for:limit:)``: its own newest change,
    /// or the compaction horizon if later, never another group's (see there).
    package func confinedLatestChangeSequence(for caller: Caller) throws(EngineError) -> Int64 {
        try state.withLock { (state) throws(EngineError) -> Int64 in
            try state.checkServable()
            let visible = try ChangeVisibility(caller: caller, index: state.keybag.blindIndex)
            let log = state.store.changeLog
            let horizon = try log.counter().horizon
            var latest = horizon
            var position = horizon
            while true {
                let (records, hasMore) = try log.records(after: position, limit: Self.maximumChangeBatch)
                for record in records where visible.includes(record) { latest = record.sequence }
                position = records.last?.sequence ?? position
                guard hasMore else { return latest }
            }
        }
    }

    /// Calls `handler` (on a queue of the engine's, never under its lock) whenever the feed may have grown: after
    /// a commit in this process, and within milliseconds of another process's write to the same keychain. Notices
    /// may be coalesced; the handler reads the feed to learn what changed. They stop when the returned observation
    /// is cancelled or released.
    public func observeChanges(_ handler: @escaping @Sendable () -> Void) throws(EngineError) -> ChangeObservation {
        try notifier.add(handler)
    }
}

/// Which change records a caller may see: those of its access groups. A record that names its group is checked
/// with Apple's rules (wildcards included); an older one that names none is matched by its group's blind-index
/// hash against the caller's exact groups, or seen by a caller entitled to every group (as is anything else known
/// only by its group's hash: a protected file's key).
struct ChangeVisibility {
    let caller: Caller
    let groupHashes: Set<Data>
    let seesEveryGroup: Bool

    init(caller: Caller, index: BlindIndex) throws(EngineError) {
        self.caller = caller
        var hashes = Set<Data>()
        for group in caller.accessGroups where !Caller.isWildcard(group) { hashes.insert(try index.group(group)) }
        groupHashes = hashes
        seesEveryGroup = caller.accessGroups.contains("*")
    }

    func includes(_ record: ChangeRecord) -> Bool {
        if let group = record.accessGroup { return caller.canAccess(group) }
        return includes(groupHash: record.groupHash)
    }

    /// Whether the group with this blind-index hash is one of the caller's.
    func includes(groupHash: Data) -> Bool {
        seesEveryGroup || groupHashes.contains(groupHash)
    }
}

extension ItemChange {
    /// The feed's form of an authenticated record.
    init(_ record: ChangeRecord) throws(EngineError) {
        guard let itemClass = ItemClass(rawValue: record.itemClass),
            let protectionClass = ProtectionClass(rawValue: record.protectionClass),
            let uuid = record.uuid.withUnsafeBytes({ UUID(bytes: $0) })
        else {
            throw .decode("change \(record.sequence) of the keychain's change log names no known item")
        }
        let kind: Kind =
            switch record.kind {
            case .added: .added
            case .updated: .updated
            case .removed: .removed
            }
        self.init(
            sequence: record.sequence, kind: kind,
            persistentReference: PersistentReference(itemClass: itemClass, uuid: uuid),
            accessGroup: record.accessGroup, protectionClass: protectionClass, isSynchronizable: record.synchronizable,
            modificationDate: Date(timeIntervalSince1970: record.modificationTime))
    }
}
