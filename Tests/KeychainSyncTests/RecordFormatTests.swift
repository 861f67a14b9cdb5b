import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainSync

/// Format 3 of item and tombstone records (issue 23): small, binary, and every guarantee of format 2 kept.
@Suite("Sync record format 3")
struct RecordFormatTests {
    /// A circle of two devices on a memory store, where the first has sent one item version: the circle, and the
    /// version's stored entry.
    private func circleWithOneVersion() throws -> (TestCircle, SyncDatabase.StoredEntry) {
        let circle = try TestCircle(.memory, devices: 2)
        let a = circle.devices[0]
        try a.add(account: "alice@example.com", service: "mail.example.com", secret: "correct horse battery")
        try a.sync.syncOnce()
        let version = try #require(try a.sync.state.entries(kinds: [.item]).last { $0.author == a.sync.deviceID })
        return (circle, version)
    }

    @Test("item versions and tombstones are written in format 3, small, and read back")
    func writtenCompact() throws {
        let (circle, version) = try circleWithOneVersion()
        let (a, b) = (circle.devices[0], circle.devices[1])
        #expect(version.bytes[SigningKeyPair.signatureByteCount] == CompactEntry.format)
        // 64 signature + 47 clear fields + 32 previous + 40 AEAD + 128 padded content.
        #expect(version.bytes.count == 311)
        try circle.syncAll()
        #expect(try b.secret(account: "alice@example.com", service: "mail.example.com") == "correct horse battery")
        try a.delete(account: "alice@example.com", service: "mail.example.com")
        try circle.syncAll()
        #expect(try b.secret(account: "alice@example.com", service: "mail.example.com") == nil)
        let tombstone = try #require(try a.sync.state.entries(kinds: [.tombstone]).last)
        #expect(tombstone.bytes[SigningKeyPair.signatureByteCount] == CompactEntry.format)
        #expect(tombstone.bytes.count == SigningKeyPair.signatureByteCount + 1 + 1 + 8 + 32 + 16)
        let name = RecordName.log(tombstone.author, tombstone.sequence)
        let entry = try SignedRecord.unverifiedBody(LogEntry.self, tombstone.bytes, name: name)
        #expect(entry.kind == .tombstone && entry.author == a.sync.deviceID && entry.sequence == tombstone.sequence)
        #expect(entry.item?.uuid != nil && entry.item?.payload == nil && entry.format == 3)
        // Other kinds stay JSON.
        let acknowledgment = try #require(try a.sync.state.entries(kinds: [.acknowledgment]).last)
        #expect(acknowledgment.bytes[SigningKeyPair.signatureByteCount] == UInt8(ascii: "{"))
    }

    @Test("a version's record takes at most 1.3× its plaintext + 300 bytes, at any size (issue 23)")
    func sizeBound() throws {
        let circle = try TestCircle(.memory, devices: 1)
        let a = circle.devices[0]
        let account = "user17@device0.example"
        let service = "service-17.example.com"
        for size in [0, 1, 10, 26, 100, 127, 200, 1024, 4000, 65_536, 1 << 20] {
            let secret = String(repeating: "x", count: size)
            try a.add(account: account, service: service, secret: secret)
            try a.sync.syncOnce()
            let version = try #require(try a.sync.state.entries(kinds: [.item]).last)
            // The plaintext as keychain-bench counts it: account, service, secret, and 24 for the rest.
            let plaintext = account.utf8.count + service.utf8.count + size + 24
            #expect(Double(version.bytes.count) <= 1.3 * Double(plaintext) + 300, "\(size): \(version.bytes.count)")
            if size <= 100 { #expect(version.bytes.count <= 600) }
            try a.delete(account: account, service: service)
        }
    }

    @Test("an entry format 3 cannot hold (no previous hash) is signed as JSON, and its version still opens")
    func fallsBackToJSON() throws {
        let (circle, version) = try circleWithOneVersion()
        let a = circle.devices[0]
        let name = RecordName.log(version.author, version.sequence)
        var entry = try SignedRecord.unverifiedBody(LogEntry.self, version.bytes, name: name)
        #expect(CompactEntry.encode(entry, name: name) != nil)
        // Under another name than its own, or without the previous hash, format 3 cannot say it.
        #expect(CompactEntry.encode(entry, name: RecordName.log(version.author, version.sequence + 1)) == nil)
        entry.previous = nil
        #expect(CompactEntry.encode(entry, name: name) == nil)
        let bytes = try SignedRecord.seal(entry, name: name, signer: a.sync.identity.signing)
        #expect(bytes[SigningKeyPair.signatureByteCount] == UInt8(ascii: "{"))
        let checked = SignedRecord.verifiedEntries([name], [name: bytes], by: a.sync.identity.publicIdentity)
        let read = try #require(try checked[name]?.get())
        #expect(read.previous == nil && read.item == entry.item)
        let epoch = try #require(read.item?.epoch)
        let keys = try #require(try a.sync.allEpochKeys(epoch))
        #expect(try SyncDevice.open(read, name: name, keys: keys).data == Data("correct horse battery".utf8))
    }

    @Test("a byte flipped anywhere in a format 3 record is refused, naming the record")
    func flippedByte() throws {
        let (circle, version) = try circleWithOneVersion()
        let author = circle.devices[0].sync.identity.publicIdentity
        let name = RecordName.log(version.author, version.sequence)
        for index in version.bytes.indices {
            var bytes = version.bytes
            bytes[index] ^= 0x01
            let result = try #require(SignedRecord.verifiedEntries([name], [name: bytes], by: author)[name])
            guard case .failure(let error) = result else {
                Issue.record("a record with byte \(index) flipped was accepted")
                continue
            }
            #expect(error.kind == .damaged && error.message.contains(name), "\(error)")
        }
        // Through a pass, too: the reader reports it by name and shows nothing of it.
        let b = circle.devices[1]
        let memory = try #require(circle.store as? MemoryStore)
        var bytes = version.bytes
        bytes[bytes.count - 1] ^= 0x80
        memory.overwrite(name, bytes)
        try b.view.deliverAll()
        let report = try b.sync.syncOnce()
        #expect(report.problems.contains { $0.contains(name) }, "\(report.problems)")
        #expect(try b.secret(account: "alice@example.com", service: "mail.example.com") == nil)
    }

    @Test("a truncated format 3 record is refused, naming the record")
    func truncated() throws {
        let (circle, version) = try circleWithOneVersion()
        let author = circle.devices[0].sync.identity.publicIdentity
        let name = RecordName.log(version.author, version.sequence)
        for count in 0..<version.bytes.count {
            let bytes = Array(version.bytes.prefix(count))
            let result = try #require(SignedRecord.verifiedEntries([name], [name: bytes], by: author)[name])
            guard case .failure(let error) = result else {
                Issue.record("a record cut to \(count) bytes was accepted")
                continue
            }
            #expect(error.kind == .damaged && error.message.contains(name), "\(error)")
        }
    }

    @Test("a format 3 record copied under another name (sequence or device) is refused: its name is signed")
    func movedRecord() throws {
        let (circle, version) = try circleWithOneVersion()
        let (a, b) = (circle.devices[0], circle.devices[1])
        let original = RecordName.log(version.author, version.sequence)
        // Another sequence of the same log: the body says neither author nor sequence.
        let later = RecordName.log(version.author, version.sequence + 100)
        let checked = SignedRecord.verifiedEntries([later], [later: version.bytes], by: a.sync.identity.publicIdentity)
        guard case .failure(let error)? = checked[later] else {
            Issue.record("a record copied to \(later) was accepted")
            return
        }
        #expect(error.message.contains(later))
        // Another device's log, checked with that device's key.
        let other = RecordName.log(b.sync.deviceID, 100)
        let moved = SignedRecord.verifiedEntries([other], [other: version.bytes], by: b.sync.identity.publicIdentity)
        guard case .failure(let otherError)? = moved[other] else {
            Issue.record("a record copied to \(other) was accepted")
            return
        }
        #expect(otherError.message.contains(other))
        // Through a pass: the copy is refused by name, the original still syncs.
        let memory = try #require(circle.store as? MemoryStore)
        memory.overwrite(later, version.bytes)
        try b.view.deliverAll()
        let report = try b.sync.syncOnce()
        #expect(report.problems.contains { $0.contains(later) }, "\(report.problems)")
        #expect(!report.problems.contains { $0.contains(original) }, "\(report.problems)")
        #expect(try b.secret(account: "alice@example.com", service: "mail.example.com") == "correct horse battery")
    }

    @Test("a payload moved to another item or another version, even signed by a member, does not open")
    func movedPayload() throws {
        let (circle, version) = try circleWithOneVersion()
        let (a, b) = (circle.devices[0], circle.devices[1])
        let name = RecordName.log(version.author, version.sequence)
        let sealed = try #require(try SignedRecord.unverifiedBody(LogEntry.self, version.bytes, name: name).item)
        // A member re-signs the payload as a version of another item, then as a later version of the same item.
        for uuid in [UUID(), sealed.uuid] {
            try a.sync.withLock { () throws(SyncError) in
                _ = try a.sync.append(.item) { (entry: inout LogEntry) throws(SyncError) in
                    entry.item = SealedVersion(
                        uuid: uuid, epoch: sealed.epoch, keyClass: sealed.keyClass, payload: sealed.payload)
                }
            }
        }
        let forged = try a.sync.state.entries(kinds: [.item]).filter { $0.sequence > version.sequence }
        #expect(forged.count == 2)
        for entry in forged {
            let forgedName = RecordName.log(entry.author, entry.sequence)
            #expect {
                try a.sync.open(entry)
            } throws: { error in
                let error = error as? SyncError
                return error?.kind == .damaged && error?.message.contains(forgedName) == true
            }
        }
        try b.view.deliverAll()
        let report = try b.sync.syncOnce()
        // The later version of the same item wins and does not open: the reader says so by name and keeps nothing
        // made up; the item moved to another UUID is not shown either.
        let latest = RecordName.log(forged[1].author, forged[1].sequence)
        #expect(report.problems.contains { $0.contains(latest) && $0.contains("does not open") }, "\(report.problems)")
        #expect(try b.synchronizableItems().allSatisfy { $0.data == Data("correct horse battery".utf8) })
    }

    @Test("a device removed from the circle cannot open a format 3 version written after, whatever epoch it names")
    func removedDeviceCannotOpen() throws {
        let circle = try TestCircle(.memory, devices: 3)
        let (a, c) = (circle.devices[0], circle.devices[2])
        try a.sync.removeDevice(c.sync.name)
        try a.add(account: "after", service: "svc", secret: "written after the removal")
        try circle.syncAll(except: [c])
        let version = try #require(try a.sync.state.entries(kinds: [.item]).last)
        let name = RecordName.log(version.author, version.sequence)
        let entry = try SignedRecord.unverifiedBody(LogEntry.self, version.bytes, name: name)
        let sealed = try #require(entry.item)
        #expect(sealed.epoch?.number == 2)
        #expect(c.sync.epochKeys.keys.allSatisfy { $0.number == 1 })
        // With every key it holds, under every epoch and class it could claim the version was sealed with.
        for epoch in c.sync.epochKeys.keys {
            let keys = try #require(try c.sync.allEpochKeys(epoch))
            for keyClass in SyncKeyClass.allCases {
                var relabelled = sealed
                relabelled.epoch = epoch
                relabelled.keyClass = keyClass
                #expect(throws: SyncError.self) {
                    try ItemSealing.open(relabelled, keys: keys, author: entry.author, clock: entry.clock, name: name)
                }
            }
        }
    }

    @Test("decoding random, truncated and mutated bytes never crashes")
    func fuzz() throws {
        let (circle, version) = try circleWithOneVersion()
        let name = RecordName.log(version.author, version.sequence)
        let body = Array(version.bytes.dropFirst(SigningKeyPair.signatureByteCount))
        let epoch = try #require(circle.devices[0].sync.currentEpoch)
        let keys = try #require(try circle.devices[0].sync.allEpochKeys(epoch))
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20_000 {
            var bytes: [UInt8]
            switch round % 4 {
            case 0:
                bytes = (0..<Int.random(in: 0...200, using: &generator)).map { _ in UInt8.random(in: 0...255) }
                if !bytes.isEmpty { bytes[0] = CompactEntry.format }
            case 1: bytes = Array(body.prefix(Int.random(in: 0...body.count, using: &generator)))
            case 2:
                bytes = body
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255)
                }
            default:
                bytes = body + (0..<Int.random(in: 1...40, using: &generator)).map { _ in UInt8.random(in: 0...255) }
            }
            let record = [UInt8](repeating: 0, count: SigningKeyPair.signatureByteCount) + bytes
            if let entry = try? SignedRecord.unverifiedBody(LogEntry.self, record, name: name), let item = entry.item,
                item.payload != nil
            {
                _ = try? ItemSealing.open(item, keys: keys, author: entry.author, clock: entry.clock, name: name)
            }
            _ = try? ItemContent(binary: bytes, range: 0..<bytes.count)
            _ = try? RecordPadding.contentCount(of: bytes)
        }
        // The untouched body still decodes (the loop above exercised the failing paths).
        #expect(try CompactEntry.decode(body, range: 0..<body.count, name: name).sequence == version.sequence)
    }

    @Test("padding: at least 128 bytes, then Padmé's lengths, under 12.5% at any size, and read back")
    func padding() throws {
        var length = 1
        while length < 1 << 22 {
            let padded = RecordPadding.paddedCount(length)
            #expect(padded >= max(RecordPadding.minimum, length + 1))
            if length >= RecordPadding.minimum {
                #expect(Double(padded) <= Double(length + 1) * 1.125, "\(length) → \(padded)")
            }
            length += max(1, length / 7)
        }
        #expect(RecordPadding.paddedCount(0) == 128 && RecordPadding.paddedCount(127) == 128)
        #expect(RecordPadding.padmé(129) == 144 && RecordPadding.padmé(65_639) == 67_584)
        for content in [[], [0x80], [1, 2, 0], [UInt8](repeating: 0, count: 500)] as [[UInt8]] {
            let padded = RecordPadding.pad(content)
            #expect(padded.count == RecordPadding.paddedCount(content.count))
            #expect(Array(padded.prefix(try RecordPadding.contentCount(of: padded))) == content)
        }
        for malformed in [[], [0, 0], [1, 0], [0x80, 1]] as [[UInt8]] {
            #expect(throws: EngineError.self) { try RecordPadding.contentCount(of: malformed) }
        }
    }
}
