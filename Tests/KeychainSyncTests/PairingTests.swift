import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainSync

/// Issue 21, item 6: the join code is a short authentication string fixed by commit-then-reveal, so a store cannot
/// grind a request of its own to match the code a person reads off the joining device. The tests lower the code
/// to three characters (15 bits) so that the store's offline search finishes at once; at 50 bits only the
/// protocol, not the length, stops it.
@Suite("Sync: join codes a store cannot grind")
struct PairingTests {
    @Test("a request the store grinds to match the code the joining device shows is not the one approved")
    func groundRequestIsNotApproved() throws {
        let circle = try TestCircle(.memory, devices: 1, joinCodeCharacters: 3)
        let member = circle.devices[0]
        let joiner = try circle.makeDevice(name: "laptop")
        try member.view.deliverAll()
        try member.sync.answerJoinRequests()
        try joiner.view.deliverAll()
        let code = try #require(try joiner.sync.revealJoinCodes()[member.sync.name])
        #expect(code.count == 3)
        // The store reads the member's answer to the joiner and searches offline for a request of its own whose
        // code, under that answer, is the code the person will type.
        let answer = try #require(
            try member.sync.decoded(.answer).first { $0.subject == joiner.sync.deviceID }?.nonce)
        let (forged, _) = try DeviceIdentity.generate(name: "laptop")
        var nonce = Data()
        for _ in 0..<2_000_000 {
            let candidate = try JoinPairing.nonce()
            let ground = try JoinPairing.code(
                joiner: forged.publicIdentity, member: member.sync.identity.publicIdentity, joinerNonce: candidate,
                memberNonce: answer, characters: 3)
            if ground == code {
                nonce = candidate
                break
            }
        }
        try #require(!nonce.isEmpty, "the search found a matching nonce")
        // It publishes that request, committed to the ground nonce, and reveals it at once.
        let id = try forged.publicIdentity.deviceID
        let identityName = RecordName.identity(id)
        _ = try circle.store.putIfAbsent(
            identityName,
            try SignedRecord.seal(
                IdentityRecord(identity: forged.publicIdentity, commitment: try JoinPairing.commitment(to: nonce)),
                name: identityName, signer: forged.signing))
        var reveal = LogEntry(author: id, sequence: 1, clock: joiner.sync.clock, kind: .reveal)
        reveal.previous = Data()
        reveal.nonce = nonce
        _ = try circle.store.putIfAbsent(
            RecordName.log(id, 1), try SignedRecord.seal(reveal, name: RecordName.log(id, 1), signer: forged.signing))
        // The member answers the new request too (the person runs sync-approve again), then the person types the
        // code the laptop showed: the laptop is admitted, the ground request is not.
        try member.view.deliverAll()
        let answered = try member.sync.answerJoinRequests()
        #expect(Set(answered.map(\.deviceID)) == [joiner.sync.deviceID, id])
        try member.sync.approve(code: code)
        let trust = try member.sync.trust()
        #expect(trust.members[joiner.sync.deviceID] != nil)
        #expect(trust.members[id] == nil, "the ground request was approved")
    }

    @Test(
        "a code shown before any member answered does not exist, and a reveal that breaks its commitment matches nothing"
    )
    func revealMustMatchCommitment() throws {
        let circle = try TestCircle(.memory, devices: 1)
        let member = circle.devices[0]
        let joiner = try circle.makeDevice(name: "desktop")
        #expect(try joiner.sync.revealJoinCodes().isEmpty)
        try member.view.deliverAll()
        try member.sync.answerJoinRequests()
        // The joiner reveals another nonce than it committed to (a store that swapped the reveal would too).
        let other = try JoinPairing.nonce()
        _ = try joiner.sync.withLock { () throws(SyncError) in
            try joiner.sync.append(.reveal) { entry in entry.nonce = other }
        }
        try member.view.deliverAll()
        let answerNonce = try #require(try member.sync.decoded(.answer).first?.nonce)
        let wouldBe = try JoinPairing.code(
            joiner: joiner.sync.identity.publicIdentity, member: member.sync.identity.publicIdentity,
            joinerNonce: other, memberNonce: answerNonce, characters: 10)
        #expect { try member.sync.approve(code: wouldBe) } throws: { ($0 as? SyncError)?.kind == .notFound }
    }
}
