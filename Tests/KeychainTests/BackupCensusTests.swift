import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import Keychain

/// The count an archive's header announces, told by the engine from its rows' clear columns (issue 27's speed-up),
/// and the archive read through its read-ahead buffer from a pipe that hands it a few bytes at a time.
@Suite("Backup census and reading", .timeLimit(.minutes(5)))
struct BackupCensusTests {
    /// A backend that forwards to an engine without being one: a backup through it lists and opens every item to
    /// count them, as through keychaind.
    final class ListingBackend: KeychainBackend {
        let engine: any KeychainBackend
        init(_ engine: any KeychainBackend) { self.engine = engine }
        func perform(_ request: BackendRequest, for caller: Caller) throws(EngineError) -> BackendReply {
            try engine.perform(request, for: caller)
        }
        func observeChanges(_ handler: @escaping @Sendable () -> Void) throws(EngineError) -> ChangeObservation {
            try engine.observeChanges(handler)
        }
    }

    @Test(
        "The engine's census from clear columns agrees with the listing's: migratable, ThisDeviceOnly, a key kept here"
    )
    func clearColumnsAgree() throws {
        let fixture = try TestKeychain(.directory)
        let keychain = fixture.keychain
        try BackupAttackTests.add(BackupAttackTests.sourceItems(), to: keychain)
        _ = try keychain.generateKey(.p256, tag: Data("com.example.census".utf8), label: "Census")
        let (clear, listed) = try keychain.perform("census") {
            (connection, caller) throws(EngineError) -> (BackupSummary, BackupSummary) in
            let engine = try connection.backend()
            guard let counting = engine as? any KeychainBackupCensus, try counting.backupCensus(for: caller) != nil
            else { throw EngineError(.internalComponent, "the embedded engine gives no census") }
            return (
                try BackupListing(backend: engine, caller: caller).census(),
                try BackupListing(backend: ListingBackend(engine), caller: caller).census()
            )
        }
        // Three passwords and the public key go; the ThisDeviceOnly password and the private key stay.
        #expect(clear == BackupSummary(itemCount: 4, thisDeviceOnly: 1, boundToThisKeychain: 1))
        #expect(listed == clear)
        // And the archive holds what the census announced.
        let directory = try TemporaryDirectory()
        let file = directory.file("census.skb")
        let key = try Keychain.Passcode(copying: BackupAttackTests.passphrase)
        #expect(try keychain.backup(to: file, passphrase: key, cost: .minimum) == clear)
        #expect(try Keychain.verifyBackup(from: try FileHandle(forReadingFrom: file), passphrase: key).itemCount == 4)
    }

    @Test("An item with access control is counted as kept on this keychain, not announced")
    func accessControlCounted() async throws {
        let fixture = try TestKeychain(.directory)
        let keychain = fixture.keychain
        try await keychain.setPasscode("2468")
        let protected = keychain.authenticationContext(scriptedContext(ScriptedPrompter([.type("2468")])))
        var alice = GenericPassword(account: "alice", service: "mail")
        alice.accessControl = [.userPresence]
        _ = try await protected.add(alice, secret: Data("a-pw".utf8))
        try await keychain.add(GenericPassword(account: "bob", service: "mail"), secret: Data("b-pw".utf8))
        let directory = try TemporaryDirectory()
        let summary = try await keychain.backup(
            to: directory.file("ac.skb"), passphrase: try Keychain.Passcode(copying: "pp"), cost: .minimum)
        #expect(summary == BackupSummary(itemCount: 1, thisDeviceOnly: 0, boundToThisKeychain: 1))
    }

    @Test("A keychain holding an item that fails authentication gives no archive, saying so, not one without it")
    func damagedItemRefused() throws {
        let fixture = try TestKeychain(.directory)
        try BackupAttackTests.add(BackupAttackTests.sourceItems(), to: fixture.keychain)
        try Tampering.swapSecrets(inKeychainAt: try #require(fixture.directory).keychain)
        let directory = try TemporaryDirectory()
        let file = directory.file("damaged.skb")
        let failure = BackupAttackTests.failure {
            try fixture.keychain.backup(
                to: file, passphrase: try Keychain.Passcode(copying: "damaged"), cost: .minimum)
        }
        #expect(failure?.contains("security verify-keychain") == true, "\(failure ?? "backed up")")
        #expect(!FileManager.default.fileExists(atPath: file.path), "an archive was left")
    }

    /// `bytes` written into a pipe `chunk` bytes at a time from another thread; the read end.
    static func trickled(_ bytes: Data, chunk: Int) -> FileHandle {
        let pipe = Pipe()
        let writer = pipe.fileHandleForWriting
        Thread.detachNewThread {
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + chunk)
                try? writer.write(contentsOf: bytes[offset..<end])
                offset = end
            }
            try? writer.close()
        }
        return pipe.fileHandleForReading
    }

    @Test("An archive trickled through a pipe a few bytes at a time restores; cut or extended there, it is refused")
    func trickledThroughPipe() throws {
        let directory = try TemporaryDirectory()
        let (_, file) = try BackupAttackTests.archive(in: directory)
        let bytes = try Data(contentsOf: file)
        let key = try Keychain.Passcode(copying: BackupAttackTests.passphrase)
        let target = try TestKeychain()
        let restored = try target.keychain.restore(from: Self.trickled(bytes, chunk: 7), passphrase: key)
        #expect(restored == RestoreSummary(added: 3, replaced: 0, kept: 0))
        let cut = BackupAttackTests.failure {
            _ = try Keychain.verifyBackup(from: Self.trickled(bytes.dropLast(1), chunk: 5), passphrase: key)
        }
        #expect(cut?.contains("archive truncated") == true, "\(cut ?? "verified")")
        let extended = BackupAttackTests.failure {
            _ = try Keychain.verifyBackup(from: Self.trickled(bytes + Data([0]), chunk: 3), passphrase: key)
        }
        #expect(extended?.contains("1 bytes follow after its final message") == true, "\(extended ?? "verified")")
    }
}
