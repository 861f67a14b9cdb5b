import Foundation
import KeychainCore
import KeychainWire
import Synchronization
import TestSupport
import Testing

@testable import Keychain

#if canImport(Glibc)
    import Glibc
#endif

/// A backend that forwards to an engine and records the largest page each copy asked for.
final class PageRecordingBackend: KeychainBackend {
    let engine: Engine
    private let largest = Mutex(0)

    init() throws {
        engine = try Engine(storage: .inMemory, options: EngineOptions(passcodeCost: .minimum))
    }

    /// The largest match limit of a copy so far (`Int.max` for `.all`).
    var largestPage: Int { largest.withLock { $0 } }

    func perform(_ request: BackendRequest, for caller: Caller) throws(EngineError) -> BackendReply {
        if case .copyMatching(let query) = request {
            let limit = (query.limit ?? .one).maximum
            largest.withLock { $0 = max($0, limit) }
        }
        return try engine.perform(request, for: caller)
    }
    func observeChanges(_ handler: @escaping @Sendable () -> Void) throws(EngineError) -> ChangeObservation {
        try engine.observeChanges(handler)
    }
}

/// A backend that adds an item of its own the first time it is asked for items' data (a backup's second pass):
/// another writer between the pass that counts and the pass that seals.
final class InterleavingWriterBackend: KeychainBackend {
    let engine: Engine
    private let added = Mutex(false)

    init() throws {
        engine = try Engine(storage: .inMemory, options: EngineOptions(passcodeCost: .minimum))
    }

    func perform(_ request: BackendRequest, for caller: Caller) throws(EngineError) -> BackendReply {
        if case .copyMatching(let query) = request, query.returning.contains(.data),
            !added.withLock({ (done: inout Bool) -> Bool in
                defer { done = true }
                return done
            })
        {
            _ = try engine.add(
                NewItem(
                    itemClass: .internetPassword, attributes: [.server: .string("late.example")],
                    data: Data("late".utf8)), for: caller)
        }
        return try engine.perform(request, for: caller)
    }
    func observeChanges(_ handler: @escaping @Sendable () -> Void) throws(EngineError) -> ChangeObservation {
        try engine.observeChanges(handler)
    }
}

/// Backup and restore with memory flat in the item count (issue 27): the backup lists its items in pages, and a
/// restore into the engine streams the archive into one write session committed only after its final message.
@Suite("Backup streaming")
struct BackupStreamingTests {
    static func items(_ count: Int) -> [NewItem] {
        (0..<count).map { index in
            NewItem(
                itemClass: .genericPassword, attributes: [.account: .string("account-\(index)")],
                data: Data("secret-\(index)".utf8))
        }
    }

    /// The keychain `daemon` serves, as the app the tests name.
    static func keychain(of daemon: DaemonProcess) -> Keychain {
        Keychain.$environmentOverride.withValue(["KEYCHAIN_DAEMON": daemon.socketPath]) {
            Keychain(service: "api", identity: try? appIdentity())
        }
    }

    @Test("A backup asks its backend for pages of items, never for all of them at once")
    func backupReadsInPages() throws {
        let backend = try PageRecordingBackend()
        let keychain = Keychain(service: "api", backend: backend, identity: try appIdentity())
        try BackupAttackTests.add(Self.items(700), to: keychain)
        let directory = try TemporaryDirectory()
        let file = directory.file("paged.skb")
        let passphrase = try Keychain.Passcode(copying: "pages")
        let summary = try keychain.backup(to: file, passphrase: passphrase, cost: .minimum)
        #expect(summary.itemCount == 700)
        #expect(backend.largestPage <= BackupListing.pageSize, "a copy asked for \(backend.largestPage) items")
        let contents = try Keychain.verifyBackup(from: try FileHandle(forReadingFrom: file), passphrase: passphrase)
        #expect(contents.itemCount == 700)
    }

    @Test("A streamed restore cut before its final message, or meeting a conflict at its last item, writes nothing")
    func streamedRestoreRollsBack() throws {
        let source = try TestKeychain()
        try BackupAttackTests.add(Self.items(600), to: source.keychain)
        let directory = try TemporaryDirectory()
        let file = directory.file("large.skb")
        let passphrase = try Keychain.Passcode(copying: "all or nothing")
        #expect(try source.keychain.backup(to: file, passphrase: passphrase, cost: .minimum).itemCount == 600)
        let archive = try Data(contentsOf: file)
        let frames = BackupAttackTests.frames(archive)
        let cut = directory.file("cut.skb")
        try archive.prefix(try #require(frames.last).offset).write(to: cut)

        // Cut: 600 items go into the session, then the archive ends without its final message.
        let target = try TestKeychain()
        try BackupAttackTests.add(
            [NewItem(itemClass: .genericPassword, attributes: [.account: .string("zoe")], data: Data("z".utf8))],
            to: target.keychain)
        let before = try BackupAttackTests.snapshot(target.keychain)
        let truncated = BackupAttackTests.failure {
            try target.keychain.restore(from: try FileHandle(forReadingFrom: cut), passphrase: passphrase)
        }
        #expect(truncated?.contains("truncated") == true, "\(truncated ?? "restored")")
        #expect(try BackupAttackTests.snapshot(target.keychain) == before)

        // A conflict at the last item, no policy: refused naming it, after 599 adds that are rolled back.
        try BackupAttackTests.add(
            [
                NewItem(
                    itemClass: .genericPassword, attributes: [.account: .string("account-599")], data: Data("m".utf8))
            ], to: target.keychain)
        let withConflict = try BackupAttackTests.snapshot(target.keychain)
        let conflict = BackupAttackTests.failure {
            try target.keychain.restore(from: try FileHandle(forReadingFrom: file), passphrase: passphrase)
        }
        #expect(conflict?.contains("1 archived item(s) are stored already") == true, "\(conflict ?? "restored")")
        #expect(conflict?.contains("account-599") == true)
        #expect(try BackupAttackTests.snapshot(target.keychain) == withConflict)

        // With a policy the same archive restores whole.
        let restored = try target.keychain.restore(
            from: try FileHandle(forReadingFrom: file), passphrase: passphrase, onConflict: .keep)
        #expect(restored == RestoreSummary(added: 599, replaced: 0, kept: 1))
    }

    @Test(
        "keychaind's keychain is backed up in pages over the wire and restored whole into another keychain",
        .enabled(if: getuid() == 0, "needs root to name an identity to keychaind"))
    func pagesThroughKeychaind() throws {
        let daemon = try DaemonProcess()
        defer { daemon.kill() }
        let keychain = Self.keychain(of: daemon)
        #expect(keychain.directory == nil, "the keychain is keychaind's")
        try BackupAttackTests.add(Self.items(BackupListing.pageSize * 2 + 10), to: keychain)
        let directory = try TemporaryDirectory()
        let file = directory.file("from-keychaind.skb")
        let passphrase = try Keychain.Passcode(copying: "over the wire")
        let summary = try keychain.backup(to: file, passphrase: passphrase, cost: .minimum)
        #expect(summary.itemCount == BackupListing.pageSize * 2 + 10)
        let target = try TestKeychain()
        let restored = try target.keychain.restore(from: try FileHandle(forReadingFrom: file), passphrase: passphrase)
        #expect(restored.added == BackupListing.pageSize * 2 + 10)
        #expect(
            try BackupAttackTests.snapshot(target.keychain, keepingDates: false)
                == BackupAttackTests.snapshot(keychain, keepingDates: false))
    }

    @Test(
        "A restore into keychaind streams through one write session: a cut archive or a conflict at its end writes nothing, a policy restores whole, and a client that leaves mid-session leaves nothing",
        .enabled(if: getuid() == 0, "needs root to name an identity to keychaind"))
    func restoreIntoKeychaind() throws {
        let daemon = try DaemonProcess()
        defer { daemon.kill() }
        let keychain = Self.keychain(of: daemon)
        let source = try TestKeychain()
        try BackupAttackTests.add(Self.items(600), to: source.keychain)
        let directory = try TemporaryDirectory()
        let file = directory.file("into-keychaind.skb")
        let passphrase = try Keychain.Passcode(copying: "into the daemon")
        #expect(try source.keychain.backup(to: file, passphrase: passphrase, cost: .minimum).itemCount == 600)
        let archive = try Data(contentsOf: file)
        let cut = directory.file("cut.skb")
        try archive.prefix(try #require(BackupAttackTests.frames(archive).last).offset).write(to: cut)
        try BackupAttackTests.add(
            [NewItem(itemClass: .genericPassword, attributes: [.account: .string("zoe")], data: Data("z".utf8))],
            to: keychain)

        // Cut: 600 items go into keychaind's session, then the archive ends without its final message.
        let before = try BackupAttackTests.snapshot(keychain)
        let truncated = BackupAttackTests.failure {
            try keychain.restore(from: try FileHandle(forReadingFrom: cut), passphrase: passphrase)
        }
        #expect(truncated?.contains("truncated") == true, "\(truncated ?? "restored")")
        #expect(try BackupAttackTests.snapshot(keychain) == before)

        // A conflict at the last item, no policy: refused naming it; the 599 adds before it are rolled back.
        try BackupAttackTests.add(
            [
                NewItem(
                    itemClass: .genericPassword, attributes: [.account: .string("account-599")], data: Data("m".utf8))
            ], to: keychain)
        let withConflict = try BackupAttackTests.snapshot(keychain)
        let conflict = BackupAttackTests.failure {
            try keychain.restore(from: try FileHandle(forReadingFrom: file), passphrase: passphrase)
        }
        #expect(conflict?.contains("1 archived item(s) are stored already") == true, "\(conflict ?? "restored")")
        #expect(try BackupAttackTests.snapshot(keychain) == withConflict)

        let restored = try keychain.restore(
            from: try FileHandle(forReadingFrom: file), passphrase: passphrase, onConflict: .keep)
        #expect(restored == RestoreSummary(added: 599, replaced: 0, kept: 1))
        #expect(try BackupAttackTests.snapshot(keychain).count == withConflict.count + 599)

        // A client that opens a session, writes, and goes away: nothing of it is kept, and the daemon serves on.
        let afterRestore = try BackupAttackTests.snapshot(keychain)
        let socket = try SeqPacketSocket.connect(to: daemon.socketPath, timeout: 10)
        func exchange(_ request: DaemonRequest) throws -> DaemonReply? {
            try socket.send(try DaemonCoding.encode(DaemonEnvelope(request: request)))
            guard socket.awaitMessage(timeout: 10), let received = try socket.receive() else { return nil }
            return try DaemonCoding.decode(DaemonReply.self, from: received.message)
        }
        guard case .welcome = try exchange(.hello(version: DaemonCoding.version)),
            case .backend(.done) = try exchange(.beginWriteSession),
            case .backend(.written) = try exchange(
                .backend(
                    .add(
                        NewItem(
                            itemClass: .genericPassword, attributes: [.account: .string("left-behind")],
                            data: Data("gone".utf8)))))
        else {
            Issue.record("the session did not open and take a write")
            return
        }
        socket.close()
        #expect(try BackupAttackTests.snapshot(keychain) == afterRestore, "a left session's write was kept")
    }

    @Test("A keychain written between a backup's count and its sealing gives no archive: the header's count would lie")
    func writtenDuringBackup() throws {
        let backend = try InterleavingWriterBackend()
        let keychain = Keychain(service: "api", backend: backend, identity: try appIdentity())
        try BackupAttackTests.add(Self.items(10), to: keychain)
        let directory = try TemporaryDirectory()
        let file = directory.file("moving.skb")
        let failure = BackupAttackTests.failure {
            try keychain.backup(to: file, passphrase: try Keychain.Passcode(copying: "moving"), cost: .minimum)
        }
        #expect(failure?.contains("the keychain changed while it was being backed up") == true, "\(failure ?? "none")")
        #expect(!FileManager.default.fileExists(atPath: file.path), "a half-written archive was left")
        // Once still, it backs up: 11 items.
        let summary = try keychain.backup(
            to: file, passphrase: try Keychain.Passcode(copying: "moving"), cost: .minimum)
        #expect(summary.itemCount == 11)
    }
}
