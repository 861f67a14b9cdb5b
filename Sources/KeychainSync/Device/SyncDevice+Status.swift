import Foundation
import KeychainCore

extension SyncDevice {
    /// This device's state, from the replica (no store access).
    public func status() throws(SyncError) -> SyncStatus {
        try withLock { () throws(SyncError) -> SyncStatus in
            let trust = try trust()
            _ = openEpochs(trust)
            let heads = try compareHeads(trust)
            let items = try state.items().values
            var pending = 0
            for item in items where !item.isDead && item.winnerAuthor == nil { pending += 1 }
            return SyncStatus(
                deviceID: deviceID, deviceName: identity.name, membership: membership(in: trust),
                storeURL: PostgresStore.hidingPassword(try state.text(Meta.storeURL) ?? ""),
                circleCode: circleCode(trust),
                epoch: epochKeys.keys.max()?.number ?? 0,
                memberCount: trust.members.count, itemCount: items.filter { $0.localUUID != nil }.count,
                pendingCount: pending, feedCursor: try state.integer(Meta.feedCursor) ?? 0, clock: clock,
                refused: try state.refusals().mapValues(\.reason), disagreements: heads.disagreements,
                unseen: heads.unseen)
        }
    }

    /// The devices of the circle: members, devices waiting for approval, removed devices (as of the last pass).
    public func devices() throws(SyncError) -> [SyncDeviceInfo] {
        try withLock { () throws(SyncError) -> [SyncDeviceInfo] in
            let trust = try trust()
            var result: [SyncDeviceInfo] = []
            var seen: Set<String> = []
            for (id, identity) in trust.admitted {
                seen.insert(id)
                let membership: SyncMembership =
                    trust.members[id] != nil ? .member : trust.refused[id] != nil ? .refused : .excluded
                result.append(info(id, identity, membership))
            }
            for id in storeIdentities.union([deviceID]) where !seen.contains(id) {
                guard let identity = try self.identity(of: id) else { continue }
                result.append(info(id, identity, .joining))
            }
            return result.sorted { ($0.membership.rawValue, $0.name, $0.id) < ($1.membership.rawValue, $1.name, $1.id) }
        }
    }

    private func info(_ id: String, _ identity: PublicIdentity, _ membership: SyncMembership) -> SyncDeviceInfo {
        SyncDeviceInfo(
            id: id, name: identity.name, membership: membership, isThisDevice: id == deviceID,
            joinCode: (try? identity.joinCode) ?? "")
    }

    /// The kept losing versions of a local item, newest first (at most ``SyncOptions/historyDepth``): versions
    /// that lost to a later one, and those of another item with the same primary key that lost to the lower UUID.
    public func history(for reference: PersistentReference) throws(SyncError) -> [SyncHistoryEntry] {
        try withLock { () throws(SyncError) -> [SyncHistoryEntry] in
            guard let item = try state.item(local: reference.uuid) else {
                throw SyncError(.notFound, "the item \(reference) is not a synced item of this keychain")
            }
            _ = openEpochs(try trust())
            var uuids = [item.uuid]
            if let key = item.keyHash {
                uuids += try state.items().values.filter { $0.keyHash == key && $0.uuid != item.uuid }.map(\.uuid)
            }
            var losers: [SyncDatabase.StoredEntry] = []
            for uuid in uuids {
                losers += try state.entries(kinds: [.item], subject: uuid.uuidString).filter {
                    !($0.author == item.winnerAuthor && $0.sequence == item.winnerSequence)
                }
            }
            let bounds = try clockBounds(try trust())
            losers.sort { VersionKey($0, bounds: bounds) > VersionKey($1, bounds: bounds) }
            var result: [SyncHistoryEntry] = []
            for loser in losers.prefix(options.historyDepth) {
                let content: ItemContent
                do throws(SyncError) {
                    content = try open(loser)
                } catch {
                    // A locked keychain shows no `ak` version, old ones included: it says so rather than hide them.
                    if error.kind == .keychain(.interactionNotAllowed) { throw error }
                    continue
                }
                guard let subject = loser.subject, let uuid = UUID(uuidString: subject) else { continue }
                result.append(
                    SyncHistoryEntry(
                        author: loser.author, clock: loser.clock, uuid: uuid, attributes: content.attributes,
                        data: content.data))
            }
            return result
        }
    }
}
