import Foundation
import KeychainCore

extension SyncDevice {
    /// Reads every device's new log entries from the store into the replica, each verified against its author's
    /// identity (whose id is a digest of its keys) and its place; a bad record is reported and skipped. Order does
    /// not matter (what the replica says depends only on which entries it holds), and a record read twice is kept
    /// once. Moves the clock past every entry read. Returns how many entries were new, the problems met, and
    /// whether a compaction read now deleted records this device never read (it is past the tombstone horizon:
    /// ``resync()``).
    @discardableResult
    func pull() throws(SyncError) -> (received: Int, problems: [String], pastHorizon: Bool) {
        let names = try storeCall { () throws(SyncStoreError) -> [String] in try store.list(prefix: RecordName.devices)
        }
        var logs: [String: Set<Int64>] = [:]
        var identities: Set<String> = []
        for name in names {
            guard let parsed = RecordName.parse(name) else { continue }
            switch parsed {
            case .identity(let device): identities.insert(device)
            case .log(let device, let sequence): logs[device, default: []].insert(sequence)
            }
        }
        storeLogs = logs
        storeHighestSequences = logs.mapValues { $0.max() ?? 0 }
        storeIdentities = identities
        var received = 0
        var problems: [String] = []
        var compactions: [LogEntry] = []
        var known = try state.sequences()
        let total = logs.reduce(0) { $0 + $1.value.subtracting(known[$1.key] ?? []).count }
        var checked = 0
        for (device, sequences) in logs.sorted(by: { $0.key < $1.key }) {
            let new = sequences.subtracting(known[device] ?? []).sorted()
            guard !new.isEmpty else { continue }
            defer {
                checked += new.count
                passProgress?(SyncProgress(phase: .receiving, done: checked, total: total))
            }
            guard let author = try identity(of: device) else {
                problems.append("device \(device) has log records but no valid identity record")
                continue
            }
            // Fetched together (one query on PostgreSQL), then checked one by one in order.
            let fetched = try storeCall { () throws(SyncStoreError) -> [String: [UInt8]] in
                try store.getMany(new.map { RecordName.log(device, $0) })
            }
            // Signatures checked and bodies parsed on every core at once, then kept one by one in order.
            let checked = SignedRecord.verifiedEntries(new.map { RecordName.log(device, $0) }, fetched, by: author)
            for sequence in new {
                let name = RecordName.log(device, sequence)
                guard let bytes = fetched[name], let result = checked[name] else { continue }
                do throws(SyncError) {
                    let entry = try result.get()
                    guard entry.author == device, entry.sequence == sequence else {
                        throw SyncError(.damaged, "the record \(name) claims another place")
                    }
                    let kept = try keep(entry, bytes: bytes)
                    passEntries?[name] = (bytes, entry)
                    if let fault = kept.fault {
                        throw SyncError(.notTrusted, "device \(device) is refused: \(fault)")
                    }
                    if kept.isNew {
                        received += 1
                        known[device, default: []].insert(sequence)
                        if entry.kind == .compaction { compactions.append(entry) }
                    }
                    clock = HybridLogicalClock.receive(entry.clock, after: clock, wall: options.now())
                } catch {
                    problems.append(error.message)
                }
            }
        }
        try state.setInteger(clock.rawValue, for: Meta.clock)
        // Only a compaction by a device the circle admitted can say records are gone for good (found by review: a
        // stranger's made a device resync and delete local items).
        let circle = try trust()
        let pastHorizon = compactions.contains { compaction in
            guard circle.accepts(author: compaction.author, sequence: compaction.sequence) else { return false }
            return (compaction.removed ?? []).contains { !(known[compaction.author]?.contains($0) ?? false) }
        }
        // Kept until a pass resyncs: the compaction is read only once.
        if pastHorizon { try state.setInteger(1, for: Meta.needsResync) }
        return (received, problems, pastHorizon)
    }

    /// The identity of a device, read from its identity record the first time.
    func identity(of device: String) throws(SyncError) -> PublicIdentity? {
        if let known = knownIdentities[device] { return known }
        if device == deviceID { return identity.publicIdentity }
        let name = RecordName.identity(device)
        guard let bytes = try storeCall({ () throws(SyncStoreError) -> [UInt8]? in try store.get(name) }),
            let identity = try? IdentityRecord.verified(bytes, name: name, device: device)
        else { return nil }
        knownIdentities[device] = identity
        return identity
    }

    /// Appends an entry to this device's log: the next sequence (after every one in the replica or the store),
    /// a new clock tick, signed. When the name is taken (another copy of this device wrote it: a restored backup),
    /// reads that log again and takes the next one.
    @discardableResult
    func append(_ kind: LogEntry.Kind, _ fill: (inout LogEntry) throws(SyncError) -> Void) throws(SyncError)
        -> LogEntry
    {
        for _ in 0..<8 {
            let sequence = max(try state.lastSequence(of: deviceID), storeHighestSequences[deviceID] ?? 0) + 1
            clock = HybridLogicalClock.tick(after: clock, wall: options.now())
            var entry = LogEntry(author: deviceID, sequence: sequence, clock: clock, kind: kind)
            entry.previous = try previousHash(before: sequence)
            try fill(&entry)
            let name = RecordName.log(deviceID, sequence)
            let bytes = try SignedRecord.seal(entry, name: name, signer: identity.signing)
            let written = try storeCall { () throws(SyncStoreError) -> Bool in try store.putIfAbsent(name, bytes) }
            if written {
                let link = SyncDatabase.Link(
                    sequence: sequence, hash: try EntryHash.of(bytes), clock: clock, previous: entry.previous)
                try state.transaction { () throws(SyncError) in
                    try state.saveLink(author: deviceID, link)
                    try state.insert(entry, bytes: bytes)
                    try state.setInteger(clock.rawValue, for: Meta.clock)
                }
                storeHighestSequences[deviceID] = sequence
                return entry
            }
            try pull()
            storeHighestSequences[deviceID] = max(storeHighestSequences[deviceID] ?? 0, sequence)
        }
        throw SyncError(.store(.damaged), "cannot find a free place in this device's log in the store")
    }

    /// The circle as the replica defines it.
    func trust() throws(SyncError) -> TrustState {
        let entries = try state.entries(kinds: [.genesis, .approval, .exclusion, .share, .rekey, .acknowledgment])
        var decoded: [LogEntry] = []
        var evidence = TrustEvidence()
        for (author, refusal) in try state.refusals() { evidence.refused[author] = refusal.sequence }
        for entry in entries {
            let name = RecordName.log(entry.author, entry.sequence)
            guard let body = try? SignedRecord.unverifiedBody(LogEntry.self, entry.bytes, name: name) else { continue }
            if body.kind == .acknowledgment {
                evidence.readings[body.author, default: []].append(
                    TrustEvidence.Reading(sequence: body.sequence, cursors: body.cursors ?? [:]))
                continue
            }
            decoded.append(body)
            // An exclusion pins the subject's entry its author read last; a different one kept here means the
            // subject signed two histories: its log counts for nothing.
            if body.kind == .exclusion, let subject = body.subject, let through = body.acceptedThrough,
                through > 0, let pin = body.acceptedHash, let kept = try state.link(of: subject, at: through),
                kept.hash != pin
            {
                evidence.refused[subject] = 1
                try state.refuse(
                    subject, from: 1,
                    reason: "its entry at sequence \(through) is not the one \(body.author)'s exclusion of it pinned")
            }
        }
        for author in evidence.readings.keys { evidence.readings[author]?.sort { $0.sequence < $1.sequence } }
        let pinned = try state.text(Meta.founder)
        let expected = try state.text(Meta.expectedCircle).flatMap { $0.isEmpty ? nil : $0 }
        // A device told the circle's code founds its view on the genesis whose author has that code, whatever
        // other genesis a store shows it first (found by review: the first genesis by clock won, and a made-up one
        // was then pinned for good).
        // With a code and no genesis that has it, no circle is seen at all (an empty founder matches no author).
        let founder =
            pinned
            ?? expected.map { code in
                decoded.first { $0.kind == .genesis && $0.member.map { Self.has($0, circleCode: code) } == true }?
                    .author ?? ""
            }
        let trust = TrustState(decoded, founder: founder, evidence: evidence)
        // Once this device belongs to the circle it was told of (or to the first one, when it was told none), its
        // founder is pinned: a genesis the store makes up later, however early its clock, founds nothing.
        if pinned == nil, let founder = trust.founder, trust.members[deviceID] != nil,
            let identity = trust.admitted[founder], expected.map({ Self.has(identity, circleCode: $0) }) ?? true
        {
            try state.setText(founder, for: Meta.founder)
        }
        return trust
    }

    /// Whether `founder` has `code` as its circle code (or, for a code kept from before circle codes grew to 100
    /// bits, as its join code).
    private static func has(_ founder: PublicIdentity, circleCode code: String) -> Bool {
        let actual = code.count == 11 ? try? founder.joinCode : try? founder.circleCode
        return actual == code
    }

    /// Opens every epoch whose top-level key was shared with this device and keeps its keys (``remember(_:)``):
    /// that needs the agreement key, so the keychain unlocked; until then the epoch waits.
    func openEpochs(_ trust: TrustState) -> [String] {
        var problems: [String] = []
        var agreement: KeyAgreementKeyPair?
        for (id, definition) in trust.epochs.sorted(by: { $0.key < $1.key }) where epochKeys[id] == nil {
            guard let share = trust.shares[id]?[deviceID] else { continue }
            do throws(SyncError) {
                let pair: KeyAgreementKeyPair
                if let agreement {
                    pair = agreement
                } else {
                    pair = try agreementKeyPair()
                    agreement = pair
                }
                let topLevel = try EpochKeys.openShare(share, with: pair, as: deviceID)
                try remember(try EpochKeys.open(definition, topLevel: topLevel))
            } catch {
                problems.append(error.message)
                if error.kind == .keychain(.interactionNotAllowed) { break }
            }
        }
        return problems
    }

    /// The circle's code: the circle code of the device that created it (every member shows it; a joining device
    /// given it accepts no other circle).
    func circleCode(_ trust: TrustState) -> String {
        guard let founder = trust.founder, let identity = trust.admitted[founder] else { return "" }
        return (try? identity.circleCode) ?? ""
    }

    /// Refuses a circle other than the one the user named when joining.
    func checkCircle(_ trust: TrustState) throws(SyncError) {
        guard let expected = try state.text(Meta.expectedCircle), !expected.isEmpty else { return }
        guard let founder = trust.founder, let identity = trust.admitted[founder],
            Self.has(identity, circleCode: expected)
        else {
            throw SyncError(
                .notTrusted,
                "the store's circle has the code \(circleCode(trust)), not \(expected) as given to sync-join: this "
                    + "device stays out of it")
        }
    }

    /// Where this device stands in `trust`.
    func membership(in trust: TrustState) -> SyncMembership {
        if trust.members[deviceID] != nil { return .member }
        if trust.excluded[deviceID] != nil || trust.refused[deviceID] != nil { return .excluded }
        return .joining
    }
}
