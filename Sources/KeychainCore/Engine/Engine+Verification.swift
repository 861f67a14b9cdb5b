import Foundation

/// An item's latest change record, as verification reads the log.
private struct LatestChange {
    var sequence: Int64
    /// `nil` for a kind the engine does not write (damage).
    var kind: ChangeKind?
    var itemClass: ItemClass?
}

extension Engine {
    /// Checks the whole keychain: SQLite's page and index structure, the sealed change counter against the
    /// high-water mark and the change log, every change record's hash, and every row — its clear columns and
    /// sealed contents authenticate, its blind-index hashes are those of its attributes, and it is its item's
    /// latest version; and every item the log says exists has its row.
    ///
    /// Rows of a class the lock withholds are counted in ``VerificationReport/lockedItemCount``, not opened. Works
    /// on a keychain whose items the engine refuses to serve (a rollback or damaged WAL), to say what is wrong.
    /// Reads only.
    public func verify() throws(EngineError) -> VerificationReport {
        try state.withLock { (state) throws(EngineError) -> VerificationReport in
            var report = VerificationReport()
            if let refusal = state.refusal { report.problems.append(refusal.message) }
            // Before the snapshot: a mark read after it could be raised by a later commit of another process.
            var mark: Int64?
            do throws(EngineError) {
                mark = try state.store.changeLog.acknowledgedSequence()
            } catch {
                report.problems.append(error.message)
            }
            return try state.database.readTransaction { () throws(EngineError) -> VerificationReport in
                try Self.checkStructure(state, into: &report)
                let latest = try Self.checkChangeLog(state, mark: state.refusal == nil ? mark : nil, into: &report)
                try Self.checkRows(state, latest: latest, into: &report)
                return report
            }
        }
    }

    /// Compacts the change log now, keeping the last `window` changes whole (compaction otherwise runs by itself
    /// every ``ChangeLog/compactionInterval`` changes, keeping ``ChangeLog/compactionWindow``).
    func compactChangeLog(keepingLast window: Int64) throws(EngineError) {
        try state.withLock { (state) throws(EngineError) in
            try state.store.changeLog.compactNow(keepingLast: window)
        }
    }

    private static func checkStructure(_ state: EngineState, into report: inout VerificationReport) throws(EngineError)
    {
        var verdicts: [String] = []
        try state.database.query("PRAGMA integrity_check") { row in
            verdicts.append(row.text(0))
            return true
        }
        if verdicts != ["ok"] {
            report.problems += verdicts.map { "SQLite's integrity check: \($0)" }
        }
    }

    /// Checks the counter and the log; returns each item's latest change (by UUID bytes).
    private static func checkChangeLog(
        _ state: EngineState, mark: Int64?, into report: inout VerificationReport
    ) throws(EngineError) -> [Data: LatestChange] {
        let log = state.store.changeLog
        var counter: IntegrityCounter?
        let newest = try log.newestSequence()
        do throws(EngineError) {
            let loaded = try log.counter()
            counter = loaded
            try ChangeLog.check(newest, against: mark, path: log.highWaterMarkPath)
            if newest < loaded.sequence {
                report.problems.append(
                    "the change log ends at \(newest), before its sealed counter (\(loaded.sequence))")
            }
        } catch {
            report.problems.append(error.message)
        }
        var latest: [Data: LatestChange] = [:]
        var badRecords = 0
        try state.database.query("SELECT \(ChangeRecord.columns), mac, grp FROM changes") {
            (row: Row) throws(EngineError) -> Bool in
            report.changeCount += 1
            let kind = ChangeKind(rawValue: row.integer(1))
            let record = ChangeRecord(row)
            var authentic = try log.authenticates(record, mac: row.blob(9))
            if let sealed = row.blob(10) {
                // The group's seal binds the record's sequence and UUID: one moved from another record fails.
                authentic =
                    authentic && (try? log.groupSeal.open(sealed, sequence: record.sequence, uuid: record.uuid)) != nil
            }
            if kind == nil || !authentic { badRecords += 1 }
            if (latest[record.uuid]?.sequence ?? .min) < record.sequence {
                latest[record.uuid] = LatestChange(
                    sequence: record.sequence, kind: kind, itemClass: ItemClass(rawValue: record.itemClass))
            }
            return true
        }
        if badRecords > 0 {
            report.problems.append("\(badRecords) change records fail authentication")
        }
        if let counter, Int64(report.changeCount) + counter.compacted != newest {
            report.problems.append(
                "the change log has \(report.changeCount) records where its newest sequence and the compacted count "
                    + "make \(newest - counter.compacted)")
        }
        return latest
    }

    private static func checkRows(
        _ state: EngineState, latest: [Data: LatestChange],
        into report: inout VerificationReport
    ) throws(EngineError) {
        var seen: Set<Data> = []
        try state.store.allRows { (rowID, uuid, parsed) throws(EngineError) in
            report.itemCount += 1
            if let uuid { seen.insert(uuid) }
            let row: StoredRow
            switch parsed {
            case .failure(let error):
                report.damagedItems.append(.init(persistentReference: nil, rowID: rowID, problem: error.message))
                return
            case .success(let value): row = value
            }
            let reference = row.persistentReference
            func damaged(_ problem: String) {
                report.damagedItems.append(.init(persistentReference: reference, rowID: rowID, problem: problem))
            }
            if let change = latest[PersistentReference.bytes(of: row.uuid)], change.kind == .removed,
                !row.isTombstone
            {
                return damaged("the item was removed (change \(change.sequence)) but its row is back")
            }
            do throws(EngineError) {
                _ = try state.keybag.key(for: row.protectionClass)
            } catch {
                if error.code == .interactionNotAllowed {
                    report.lockedItemCount += 1
                } else {
                    damaged(error.message)
                }
                return
            }
            do throws(EngineError) {
                let attributes: ItemAttributes?
                if row.accessFlags != 0 {
                    // Its secret opens only with its factors: the metadata binds the envelope by its digest.
                    attributes = try state.sealer.openConstrained(
                        row, keybag: state.keybag, data: false, keepsSealing: false, release: nil, where: { _ in true }
                    )?.attributes
                } else {
                    attributes = try state.sealer.open(
                        row, keybag: state.keybag, attributes: true, data: !row.isTombstone
                    ).0
                }
                if let attributes { try Self.checkHashes(row, attributes, state) }
            } catch {
                damaged(error.message)
            }
        }
        for (uuid, change) in latest where change.kind != .removed && !seen.contains(uuid) {
            let reference = change.itemClass.flatMap { itemClass in
                uuid.withUnsafeBytes { UUID(bytes: $0) }.map { PersistentReference(itemClass: itemClass, uuid: $0) }
            }
            report.damagedItems.append(
                .init(
                    persistentReference: reference, rowID: nil,
                    problem: "the item's row is missing (its latest change, \(change.sequence), kept it)"))
        }
    }

    /// A row's blind-index hashes are those of its attributes.
    private static func checkHashes(
        _ row: StoredRow, _ attributes: ItemAttributes, _ state: EngineState
    ) throws(EngineError) {
        let index = state.keybag.blindIndex
        let group = attributes.string(.accessGroup) ?? ""
        let primaryKey = try index.primaryKey(
            itemClass: row.itemClass, accessGroup: group, synchronizable: row.synchronizable, attributes: attributes)
        guard primaryKey.withUnsafeBytes({ $0.elementsEqual(row.primaryKeyHash) }) else {
            throw .decode("its primary-key hash is not that of its attributes")
        }
        guard try index.group(group).withUnsafeBytes({ $0.elementsEqual(row.groupHash) }) else {
            throw .decode("its access-group hash is not that of its group")
        }
    }
}
