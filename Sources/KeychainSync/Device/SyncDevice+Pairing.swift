import Foundation

/// Joining by a code both devices compute (``JoinPairing``): a member answers each join request with a nonce,
/// the joining device reveals the nonce it committed to and shows the code, and the member approves the request
/// whose code the user types.
extension SyncDevice {
    /// A join request this member answered.
    public struct JoinRequest: Sendable, Equatable, Codable {
        /// The joining device's id.
        public var deviceID: String
        /// The name it gave itself.
        public var name: String
        /// Whether it has revealed its nonce, so that its code can be typed here now.
        public var isRevealed: Bool
    }

    /// Answers every join request in the store that this member has not answered yet (a nonce of its own, pinning
    /// the request's commitment), and lists the requests it answered.
    @discardableResult
    public func answerJoinRequests() throws(SyncError) -> [JoinRequest] {
        try withLock { () throws(SyncError) -> [JoinRequest] in
            try pull()
            let trust = try requireMember()
            let answered = try answers(by: deviceID)
            for device in storeIdentities.sorted()
            where trust.admitted[device] == nil && answered[device] == nil {
                guard try identity(of: device) != nil, let commitment = try commitment(of: device) else { continue }
                let nonce = try JoinPairing.nonce()
                try append(.answer) { entry in
                    entry.subject = device
                    entry.nonce = nonce
                    entry.commitment = commitment
                }
            }
            let reveals = try revealedNonces()
            var requests: [JoinRequest] = []
            for device in try answers(by: deviceID).keys.sorted() where trust.admitted[device] == nil {
                guard let identity = try identity(of: device) else { continue }
                requests.append(JoinRequest(deviceID: device, name: identity.name, isRevealed: reveals[device] != nil))
            }
            return requests
        }
    }

    /// For a joining device: reveals its nonce once a member answered its request, and returns the codes to type
    /// on the answering members, by their names (empty while no member has answered).
    public func revealJoinCodes() throws(SyncError) -> [String: String] {
        try withLock { () throws(SyncError) -> [String: String] in
            try pull()
            guard let nonce = try state.value(Meta.joinNonce) else {
                throw SyncError(.notConfigured, "this device did not ask to join a circle (sync-join)")
            }
            let commitment = try JoinPairing.commitment(to: nonce)
            // Only a member of the circle this device sees (the one its circle code names, when it was given one)
            // gets a code: a device of a circle the store made up gets nothing to show.
            let trust = try trust()
            var codes: [String: String] = [:]
            for answer in try decodedAnswers()
            where answer.subject == deviceID && answer.commitment == commitment && trust.members[answer.author] != nil {
                guard let member = try identity(of: answer.author), let theirs = answer.nonce else { continue }
                codes[member.name] = try JoinPairing.code(
                    joiner: identity.publicIdentity, member: member, joinerNonce: nonce, memberNonce: theirs,
                    characters: options.joinCodeCharacters)
            }
            if !codes.isEmpty, try revealedNonces()[deviceID] == nil {
                try append(.reveal) { entry in entry.nonce = nonce }
            }
            return codes
        }
    }

    /// The code of every request this member answered whose device revealed a nonce matching its commitment.
    func pairingCodes(_ trust: TrustState) throws(SyncError) -> [(String, PublicIdentity, String)] {
        let reveals = try revealedNonces()
        var result: [(String, PublicIdentity, String)] = []
        for (device, answer) in try answers(by: deviceID).sorted(by: { $0.key < $1.key })
        where trust.members[device] == nil {
            guard let candidate = try identity(of: device), let theirs = reveals[device], let ours = answer.nonce,
                let pinned = answer.commitment, try JoinPairing.commitment(to: theirs) == pinned
            else { continue }
            let code = try JoinPairing.code(
                joiner: candidate, member: identity.publicIdentity, joinerNonce: theirs, memberNonce: ours,
                characters: options.joinCodeCharacters)
            result.append((device, candidate, code))
        }
        return result
    }

    /// This device's answers (the first to each request), by the device they answer.
    private func answers(by member: String) throws(SyncError) -> [String: LogEntry] {
        var result: [String: LogEntry] = [:]
        for answer in try decodedAnswers() where answer.author == member {
            guard let subject = answer.subject, result[subject] == nil else { continue }
            result[subject] = answer
        }
        return result
    }

    private func decodedAnswers() throws(SyncError) -> [LogEntry] {
        try decoded(.answer).sorted { ($0.author, $0.sequence) < ($1.author, $1.sequence) }
    }

    /// Each joining device's revealed nonce (its first reveal).
    private func revealedNonces() throws(SyncError) -> [String: Data] {
        var result: [String: Data] = [:]
        for reveal in try decoded(.reveal).sorted(by: { $0.sequence < $1.sequence }) where result[reveal.author] == nil
        {
            result[reveal.author] = reveal.nonce
        }
        return result
    }

    /// The commitment in a device's join request (identity record).
    private func commitment(of device: String) throws(SyncError) -> Data? {
        let name = RecordName.identity(device)
        guard let bytes = try storeCall({ () throws(SyncStoreError) -> [UInt8]? in try store.get(name) }),
            (try? IdentityRecord.verified(bytes, name: name, device: device)) != nil
        else { return nil }
        return IdentityRecord.commitment(bytes, name: name)
    }
}
