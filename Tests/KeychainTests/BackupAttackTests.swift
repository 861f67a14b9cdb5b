import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import Keychain

/// Attacks on an encrypted backup through the `Keychain` API: every damaged archive is refused, says which damage it
/// is, and leaves the keychain it was restored into exactly as it was.
@Suite("Backup archives under attack", .timeLimit(.minutes(5)))
struct BackupAttackTests {
    static let passphrase = "correct horse battery staple"

    /// The secrets the source keychain holds; none of them may appear in the archive's bytes.
    static let secrets = ["alice-secret-1", "bob-secret-2", "carol-secret-3", "dave-secret-4"]

    /// Generic passwords in two groups (one synchronizable), an internet password and a ThisDeviceOnly password.
    static func sourceItems() -> [NewItem] {
        [
            NewItem(
                itemClass: .genericPassword, attributes: [.account: .string("alice"), .service: .string("mail")],
                data: Data("alice-secret-1".utf8)),
            NewItem(
                itemClass: .genericPassword,
                attributes: [
                    .account: .string("bob"), .service: .string("mail"), .accessGroup: .string("TEAM.shared"),
                    .synchronizable: .bool(true),
                ],
                data: Data("bob-secret-2".utf8)),
            NewItem(
                itemClass: .internetPassword,
                attributes: [.account: .string("carol"), .server: .string("example.com"), .port: .integer(443)],
                data: Data("carol-secret-3".utf8)),
            NewItem(
                itemClass: .genericPassword,
                attributes: [
                    .account: .string("dave"), .service: .string("device"),
                    .accessible: .string(ProtectionClass.whenUnlockedThisDeviceOnly.rawValue),
                ],
                data: Data("dave-secret-4".utf8)),
        ]
    }

    /// An item as a comparison sees it: class, attributes without the dates the engine sets, and data.
    struct Snapshot: Hashable, CustomStringConvertible {
        var itemClass: ItemClass
        var attributes: ItemAttributes
        var data: Data?
        var description: String { "\(itemClass.rawValue) \(attributes)" }
    }

    /// Every item of `keychain` (all classes, synchronizable or not), with its data.
    static func snapshot(_ keychain: Keychain, keepingDates: Bool = true) throws -> Set<Snapshot> {
        try keychain.perform("snapshot") { (connection, caller) throws(EngineError) -> Set<Snapshot> in
            var all = Set<Snapshot>()
            for itemClass in ItemClass.allCases {
                let query = ItemQuery(
                    itemClass: itemClass, synchronizable: .any, limit: .all, returning: [.attributes, .data])
                do throws(EngineError) {
                    for item in try connection.backend().copyMatching(query, for: caller) {
                        var attributes = item.attributes
                        if !keepingDates {
                            attributes[.creationDate] = nil
                            attributes[.modificationDate] = nil
                        }
                        all.insert(Snapshot(itemClass: item.itemClass, attributes: attributes, data: item.data))
                    }
                } catch  where error.code == .itemNotFound {
                    continue
                }
            }
            return all
        }
    }

    static func add(_ items: [NewItem], to keychain: Keychain) throws {
        _ = try keychain.perform("fill") { (connection, caller) throws(EngineError) in
            try connection.backend().add(items, for: caller)
        }
    }

    /// A source keychain and its archive (written at the cheapest Argon2id cost: these tests attack the format).
    static func archive(in directory: TemporaryDirectory) throws -> (TestKeychain, URL) {
        let source = try TestKeychain()
        try add(sourceItems(), to: source.keychain)
        let file = directory.file("keychain.skb")
        let summary = try source.keychain.backup(
            to: file, passphrase: try Keychain.Passcode(copying: passphrase), cost: .minimum)
        #expect(summary.itemCount == 3 && summary.thisDeviceOnly == 1)
        return (source, file)
    }

    /// The messages' frames after the header: (offset, length with its 4-byte length prefix).
    static func frames(_ archive: Data) -> [(offset: Int, count: Int)] {
        var frames: [(Int, Int)] = []
        var offset = BackupArchive.headerByteCount
        while offset + 4 <= archive.count {
            let length = archive[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
            frames.append((offset, 4 + length))
            offset += 4 + length
        }
        return frames
    }

    /// Restores `bytes` into a keychain that already holds an item of its own, expecting a refusal naming `reason`
    /// and the keychain unchanged; then verifies the same bytes, expecting the same reason.
    static func expectRefused(
        _ bytes: Data, _ name: String, reason: String, passphrase: String = passphrase,
        in directory: TemporaryDirectory
    ) throws {
        let damaged = directory.file("\(name).skb")
        try bytes.write(to: damaged)
        let target = try TestKeychain()
        try add(
            [NewItem(itemClass: .genericPassword, attributes: [.account: .string("zoe")], data: Data("mine".utf8))],
            to: target.keychain)
        let before = try snapshot(target.keychain)
        let key = try Keychain.Passcode(copying: passphrase)
        let input = try FileHandle(forReadingFrom: damaged)
        let restoring = failure { try target.keychain.restore(from: input, passphrase: key, onConflict: .replace) }
        #expect(restoring?.contains(reason) == true, "\(name): \(restoring ?? "restored")")
        #expect(try snapshot(target.keychain) == before, "\(name) changed the keychain")
        let verifying = failure {
            _ = try Keychain.verifyBackup(from: try FileHandle(forReadingFrom: damaged), passphrase: key)
        }
        #expect(verifying?.contains(reason) == true, "\(name): \(verifying ?? "verified")")
    }

    /// The message of the error `body` throws, or `nil` when it throws none.
    static func failure(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as KeychainError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test("A round trip restores every migratable item equal, none ThisDeviceOnly; no secret is in clear")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let (source, file) = try Self.archive(in: directory)
        let bytes = try Data(contentsOf: file)
        for clear in Self.secrets + ["alice", "carol", "example.com", "TEAM.shared"] {
            #expect(bytes.range(of: Data(clear.utf8)) == nil, "\(clear) is in clear in the archive")
        }
        let target = try TestKeychain()
        let restored = try target.keychain.restore(
            from: try FileHandle(forReadingFrom: file), passphrase: try Keychain.Passcode(copying: Self.passphrase))
        #expect(restored == RestoreSummary(added: 3, replaced: 0, kept: 0))
        let migratable = try Self.snapshot(source.keychain, keepingDates: false).filter {
            $0.attributes[.account] != .string("dave")
        }
        #expect(migratable.count == 3)
        #expect(try Self.snapshot(target.keychain, keepingDates: false) == migratable)
    }

    @Test("Each byte of the header flipped is refused at once as a wrong passphrase or damaged header")
    func headerFlips() throws {
        let directory = try TemporaryDirectory()
        let (_, file) = try Self.archive(in: directory)
        let good = try Data(contentsOf: file)
        let key = try Keychain.Passcode(copying: Self.passphrase)
        for position in 0..<BackupArchive.headerByteCount {
            var bytes = good
            bytes[position] ^= 1
            let damaged = directory.file("flip-\(position).skb")
            try bytes.write(to: damaged)
            let reason =
                position < 8
                ? "not a swift-keychain backup"
                : position == 8 ? "format version" : "wrong passphrase or damaged header"
            let started = ContinuousClock.now
            let verifying = Self.failure {
                _ = try Keychain.verifyBackup(from: try FileHandle(forReadingFrom: damaged), passphrase: key)
            }
            #expect(verifying?.contains(reason) == true, "byte \(position): \(verifying ?? "verified")")
            // An edited cost must not buy the editor hours of Argon2id (or gigabytes of memory) on the reader.
            #expect(
                ContinuousClock.now - started < .seconds(5), "byte \(position) took \(ContinuousClock.now - started)")
        }
        try Self.expectRefused(
            {
                var bytes = good; bytes[40] ^= 1; return bytes
            }(), "header", reason: "wrong passphrase or damaged header",
            in: directory)
    }

    @Test("A cut, edited, reordered or extended archive, or the wrong passphrase, restores nothing and says which")
    func damagedArchives() throws {
        let directory = try TemporaryDirectory()
        let (_, file) = try Self.archive(in: directory)
        let good = try Data(contentsOf: file)
        let frames = Self.frames(good)
        try #require(frames.count == 4, "three items and the final message")
        func frame(_ index: Int) -> Data { good[frames[index].offset..<frames[index].offset + frames[index].count] }
        var flippedItem = good
        flippedItem[frames[1].offset + 10] ^= 1
        var flippedLength = good
        flippedLength[frames[2].offset] ^= 1
        let header = good.prefix(BackupArchive.headerByteCount)
        let cases: [(String, Data, String, String)] = [
            ("truncated", good.prefix(good.count - 7), Self.passphrase, "archive truncated"),
            ("final dropped", good.prefix(frames[3].offset), Self.passphrase, "archive truncated"),
            ("header only", header, Self.passphrase, "archive truncated"),
            ("cut in header", good.prefix(50), Self.passphrase, "archive truncated"),
            ("item flipped", flippedItem, Self.passphrase, "damaged or reordered at item 2"),
            ("length flipped", flippedLength, Self.passphrase, "at item 3"),
            ("swapped", header + frame(1) + frame(0) + frame(2) + frame(3), Self.passphrase, "reordered at item 1"),
            ("item dropped", header + frame(0) + frame(2) + frame(3), Self.passphrase, "reordered at item 2"),
            ("item repeated", header + frame(0) + frame(0) + frame(1) + frame(3), Self.passphrase, "at item 2"),
            ("appended", good + Data("more".utf8), Self.passphrase, "after its final message"),
            ("appended archive", good + good, Self.passphrase, "after its final message"),
            ("wrong passphrase", good, "wrong horse", "wrong passphrase or damaged header"),
        ]
        for (name, bytes, passphrase, reason) in cases {
            try Self.expectRefused(bytes, name, reason: reason, passphrase: passphrase, in: directory)
        }
    }

    @Test("Conflicts: refused by default naming each and writing nothing; keep, replace, newer decide per item")
    func conflicts() throws {
        let directory = try TemporaryDirectory()
        let (_, file) = try Self.archive(in: directory)
        let key = try Keychain.Passcode(copying: Self.passphrase)
        func target() throws -> TestKeychain {
            let target = try TestKeychain()
            try Self.add(
                [
                    NewItem(
                        itemClass: .genericPassword,
                        attributes: [.account: .string("alice"), .service: .string("mail")],
                        data: Data("changed-later".utf8))
                ], to: target.keychain)
            return target
        }
        let refusing = try target()
        let before = try Self.snapshot(refusing.keychain)
        let input = try FileHandle(forReadingFrom: file)
        do throws(KeychainError) {
            try refusing.keychain.restore(from: input, passphrase: key)
            Issue.record("a conflicting restore went through")
        } catch {
            #expect(error.status == -25299)
            #expect(error.message.contains("genp acct \"alice\", svce \"mail\""), "\(error.message)")
            #expect(!error.message.contains("carol"), "only conflicts are named: \(error.message)")
        }
        #expect(
            try Self.snapshot(refusing.keychain) == before, "the refused restore wrote the items that did not conflict")
        for (policy, expected, summary) in [
            (RestoreConflictPolicy.keep, "changed-later", RestoreSummary(added: 2, replaced: 0, kept: 1)),
            (.replace, "alice-secret-1", RestoreSummary(added: 2, replaced: 1, kept: 0)),
            (.newer, "changed-later", RestoreSummary(added: 2, replaced: 0, kept: 1)),
        ] {
            let keychain = try target().keychain
            let done = try keychain.restore(
                from: try FileHandle(forReadingFrom: file), passphrase: key, onConflict: policy)
            #expect(done == summary, "\(policy)")
            let alice = try Self.snapshot(keychain).filter { $0.attributes[.account] == .string("alice") }
            #expect(alice.map(\.data) == [Data(expected.utf8)], "\(policy)")
            #expect(try Self.snapshot(keychain).count == 3, "\(policy)")
        }
    }

    @Test("An older archive under .newer loses to a later change; a later archive replaces an older item")
    func newerByDate() throws {
        let directory = try TemporaryDirectory()
        let target = try TestKeychain()
        try Self.add(
            [
                NewItem(
                    itemClass: .genericPassword, attributes: [.account: .string("alice"), .service: .string("mail")],
                    data: Data("old-on-target".utf8))
            ], to: target.keychain)
        Thread.sleep(forTimeInterval: 1.1)
        let (_, file) = try Self.archive(in: directory)
        let key = try Keychain.Passcode(copying: Self.passphrase)
        let done = try target.keychain.restore(
            from: try FileHandle(forReadingFrom: file), passphrase: key, onConflict: .newer)
        #expect(done.replaced == 1)
        let alice = try Self.snapshot(target.keychain).filter { $0.attributes[.account] == .string("alice") }
        #expect(alice.map(\.data) == [Data("alice-secret-1".utf8)])
    }

    @Test("A restore the keychain refuses part of (a group the app lacks) writes none of it, saying which")
    func refusedMidwayWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let (_, file) = try Self.archive(in: directory)
        // Entitled to the first item's group, not to the second's (TEAM.shared).
        let target = try TestKeychain(
            identity: try ApplicationIdentity(
                applicationIdentifier: "TEAM.com.example.app", accessGroups: ["TEAM.com.example.app"]))
        try Self.add(
            [NewItem(itemClass: .genericPassword, attributes: [.account: .string("zoe")], data: Data("mine".utf8))],
            to: target.keychain)
        let before = try Self.snapshot(target.keychain)
        let key = try Keychain.Passcode(copying: Self.passphrase)
        let message = Self.failure {
            try target.keychain.restore(from: try FileHandle(forReadingFrom: file), passphrase: key)
        }
        #expect(message?.contains("TEAM.shared") == true, "\(message ?? "restored")")
        #expect(try Self.snapshot(target.keychain) == before, "a restore refused midway wrote its first items")
    }

    @Test("An empty keychain's archive restores nothing and verifies; without its final message it is truncated")
    func emptyArchive() throws {
        let directory = try TemporaryDirectory()
        let source = try TestKeychain()
        let file = directory.file("empty.skb")
        let key = try Keychain.Passcode(copying: Self.passphrase)
        #expect(try source.keychain.backup(to: file, passphrase: key, cost: .minimum).itemCount == 0)
        #expect(try Keychain.verifyBackup(from: try FileHandle(forReadingFrom: file), passphrase: key).itemCount == 0)
        let target = try TestKeychain()
        let restored = try target.keychain.restore(from: try FileHandle(forReadingFrom: file), passphrase: key)
        #expect(restored == RestoreSummary(added: 0, replaced: 0, kept: 0))
        try Self.expectRefused(
            try Data(contentsOf: file).prefix(BackupArchive.headerByteCount), "empty cut", reason: "archive truncated",
            in: directory)
    }
}
