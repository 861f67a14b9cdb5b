import Foundation
import KeychainCore

extension SyncDevice {
    /// One sync pass: reads the store's new records, sends this keychain's changes, and makes the keychain match
    /// the circle. A device waiting for approval only looks for it; an excluded device does nothing.
    @discardableResult
    public func syncOnce() throws(SyncError) -> SyncReport {
        try syncOnce(progress: nil)
    }

    /// One pass, as ``syncOnce()``, telling `progress` (on this thread) how far it is: the records fetched and
    /// checked of those the store has that are new here, then the items applied of those the pass decides — the
    /// long part of a device's first pass in a large circle.
    public func syncOnce(progress: ((SyncProgress) -> Void)?) throws(SyncError) -> SyncReport {
        try withLock { () throws(SyncError) -> SyncReport in
            // An erased keychain (after too many wrong passcodes) has left the circle: its removals are local, never
            // tombstones, and nothing from the circle comes back into it.
            if try wasErased() {
                try Self.setAside(state)
                throw Self.erasedError(directory)
            }
            // `ak` keys unwrapped in this pass are kept until it ends, never longer.
            passKeys = [:]
            passEntries = [:]
            passProgress = progress
            defer {
                passKeys = nil
                passEntries = nil
                passProgress = nil
            }
            // The whole pass writes the sync state in one transaction (one sync of its file, not one per record or
            // item; each step that may fail alone runs in a savepoint of it). What a pass that fails loses is
            // fetched again from the store, where this device's own entries are published before it records them.
            // A device found removed keeps what it learned (the records that say so) before it says so.
            let (report, removal) = try state.transaction { () throws(SyncError) in try pass() }
            if let removal { throw removal }
            return report
        }
    }

    /// The steps of one pass (``syncOnce()``), under the device's lock and in the sync state's transaction, and
    /// the error that says this device was removed, if it was.
    private func pass() throws(SyncError) -> (SyncReport, SyncError?) {
        var report = SyncReport()
        let pulled = try pull()
        report.received = pulled.received
        report.problems += pulled.problems
        if try state.integer(Meta.needsResync) == 1 { report.applied += try resync() }
        let trust = try trust()
        switch membership(in: trust) {
        case .joining: return (report, nil)
        case .excluded, .refused:
            return (report, SyncError(.notTrusted, "this device was removed from the sync circle"))
        case .member: try checkCircle(trust)
        }
        report.problems += openEpochs(trust)
        currentEpoch = trust.currentEpoch
        report.sent += try rekeyIfNeeded(trust)
        report.sent += try shareMissingKeys(trust)
        report.sent += try pushLocalChanges(problems: &report.problems)
        let bounds = try clockBounds(trust)
        report.applied += try applyReplica(trust, bounds: bounds, problems: &report.problems)
        report.sent += try acknowledge(trust, bounds: bounds)
        report.sent += try compact(trust)
        return (report, nil)
    }

    /// Defines a new epoch shared with the members only when every epoch was given to a device that is no longer
    /// one (two devices that excluded each other both stand excluded, each having shared its new epoch with the
    /// other's remover): nothing is sealed under a key a removed device holds.
    private func rekeyIfNeeded(_ trust: TrustState) throws(SyncError) -> Int {
        guard currentEpoch == nil, !trust.epochs.isEmpty else { return 0 }
        let number = (trust.epochs.keys.map(\.number).max() ?? 0) + 1
        let (keys, definition) = try EpochKeys.create(EpochID(number: number, creator: deviceID))
        var shares: [KeyShare] = []
        for (member, identity) in trust.members.sorted(by: { $0.key < $1.key }) {
            shares.append(try keys.share(with: identity, id: member))
        }
        try append(.rekey) { entry in
            entry.epoch = definition
            entry.shares = shares
        }
        try remember(keys)
        currentEpoch = keys.id
        return 1
    }

    /// Seals each epoch this device holds to every member that has no share of it yet (a device approved while
    /// another was removed, say), in one share entry per member.
    private func shareMissingKeys(_ trust: TrustState) throws(SyncError) -> Int {
        var sent = 0
        for (member, identity) in trust.members.sorted(by: { $0.key < $1.key }) where member != deviceID {
            var shares: [KeyShare] = []
            let missing = epochKeys.keys.filter { trust.shares[$0]?[member] == nil }
            guard !missing.isEmpty else { continue }
            // The top-level keys are under `ak`: shares wait for the keychain to be unlocked.
            let topLevel: [EpochID: EpochKeys]
            do throws(SyncError) {
                topLevel = try topLevelKeys()
            } catch {
                if error.kind == .keychain(.interactionNotAllowed) { return sent }
                throw error
            }
            for id in missing.sorted() {
                guard let keys = topLevel[id] else { continue }
                shares.append(try keys.share(with: identity, id: member))
            }
            guard !shares.isEmpty else { continue }
            try append(.share) { entry in entry.shares = shares }
            sent += 1
        }
        return sent
    }

    /// Approves the join request whose code is `code`, as the joining device shows it once this device answered it
    /// (``answerJoinRequests()``, then the joining device's ``revealJoinCodes()``): admits that device and shares
    /// every epoch's key with it. A request the store made or swapped gets another code, except by a one-in-2^50
    /// guess it had to commit to before this device's answer; nothing matches it, and
    /// ``SyncError/Kind/notFound`` says so.
    public func approve(code: String) throws(SyncError) {
        let length = options.joinCodeCharacters
        guard let wanted = PublicIdentity.normalizedCode(code, characters: length) else {
            throw SyncError(
                .invalidArgument, "\"\(code)\" is not a join code (\(length) letters and digits, as XXXXX-XXXXX)")
        }
        try withLock { () throws(SyncError) in
            try pull()
            let trust = try requireMember()
            var match: (String, PublicIdentity)?
            for (device, candidate, code) in try pairingCodes(trust) where code == wanted {
                guard trust.excluded[device] == nil, trust.refused[device] == nil else {
                    throw SyncError(.notTrusted, "the device with code \(wanted) was removed from the circle")
                }
                guard match == nil else {
                    throw SyncError(
                        .notTrusted, "two join requests in the store have the code \(wanted): none is approved")
                }
                match = (device, candidate)
            }
            guard let (device, candidate) = match else {
                throw SyncError(
                    .notFound,
                    "no join request this device answered has the code \(wanted) (answer first with sync-approve "
                        + "alone, and take the code the new device shows after that)")
            }
            var shares: [KeyShare] = []
            for (_, keys) in try topLevelKeys().sorted(by: { $0.key < $1.key }) {
                shares.append(try keys.share(with: candidate, id: device))
            }
            try append(.approval) { entry in
                entry.member = candidate
                entry.shares = shares
            }
        }
    }

    /// Removes a device (by id, or by name when one member has it): a signed exclusion, and a new epoch whose key
    /// is sealed to the remaining members only, so the removed device cannot read what is written afterwards.
    public func removeDevice(_ device: String) throws(SyncError) {
        try withLock { () throws(SyncError) in
            try pull()
            let trust = try requireMember()
            let named = trust.members.filter { $0.value.name == device }.map(\.key)
            let target: String
            if trust.members[device] != nil {
                target = device
            } else if named.count == 1 {
                target = named[0]
            } else if named.count > 1 {
                throw SyncError(.invalidArgument, "\(named.count) devices are named \"\(device)\": give its id")
            } else {
                throw SyncError(.notFound, "no device of the circle is named or has the id \"\(device)\"")
            }
            guard target != deviceID else {
                throw SyncError(.invalidArgument, "a device cannot remove itself: remove it from another device")
            }
            let number = (trust.epochs.keys.map(\.number).max() ?? 0) + 1
            let (keys, definition) = try EpochKeys.create(EpochID(number: number, creator: deviceID))
            var shares: [KeyShare] = []
            for (member, identity) in trust.members.sorted(by: { $0.key < $1.key }) where member != target {
                shares.append(try keys.share(with: identity, id: member))
            }
            // The contiguous cursor, not the highest sequence held: what lies beyond a gap was not read in order,
            // and the pinned hash is of the entry the cursor stands on.
            let through = try readCursors()[target] ?? 0
            let pin = through > 0 ? try state.link(of: target, at: through)?.hash : nil
            try append(.exclusion) { entry in
                entry.subject = target
                entry.acceptedThrough = through
                entry.acceptedHash = pin
                entry.epoch = definition
                entry.shares = shares
            }
            try remember(keys)
            currentEpoch = keys.id
        }
    }

    func requireMember() throws(SyncError) -> TrustState {
        let trust = try trust()
        guard membership(in: trust) == .member else {
            throw SyncError(.notTrusted, "this device is not a trusted member of the sync circle")
        }
        try checkCircle(trust)
        _ = openEpochs(trust)
        currentEpoch = trust.currentEpoch
        return trust
    }
}
