import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import Keychain

#if canImport(Glibc)
    import Glibc
#endif

/// A backup as a move to a new machine: a large keychain restored into another keychain (another directory, another
/// keybag and device key), and a restore into the keychain keychaind serves.
@Suite("Backup to a second machine", .timeLimit(.minutes(5)))
struct BackupScaleTests {
    @Test("10,000 items restore into an empty keychain elsewhere: every migratable item equal, no ThisDeviceOnly one")
    func tenThousandItems() throws {
        let source = try TestKeychain()
        let items = (0..<10_000).map { index in
            let isInternet = index % 4 == 0
            var attributes: ItemAttributes = [.account: .string("account-\(index)")]
            attributes[isInternet ? .server : .service] = .string("host-\(index % 7).example")
            if index % 10 == 0 {
                attributes[.accessible] = .string(ProtectionClass.afterFirstUnlockThisDeviceOnly.rawValue)
            }
            if index % 3 == 0, index % 10 != 0 { attributes[.synchronizable] = .bool(true) }
            if index % 5 == 0 { attributes[.accessGroup] = .string("TEAM.shared") }
            return NewItem(
                itemClass: isInternet ? .internetPassword : .genericPassword, attributes: attributes,
                data: Data("secret-\(index)".utf8))
        }
        try BackupAttackTests.add(items, to: source.keychain)
        let directory = try TemporaryDirectory()
        let file = directory.file("large.skb")
        let passphrase = try Keychain.Passcode(copying: "moving to a new machine")
        let progress = ProgressLog()
        let summary = try source.keychain.backup(
            to: file, passphrase: passphrase, cost: .minimum, progress: { progress.record($0, $1) })
        #expect(summary.itemCount == 9_000 && summary.thisDeviceOnly == 1_000)
        #expect(progress.last == [9_000, 9_000])
        let target = try TestKeychain()
        let restored = try target.keychain.restore(
            from: try FileHandle(forReadingFrom: file), passphrase: passphrase,
            progress: { progress.record($0, $1) })
        #expect(restored == RestoreSummary(added: 9_000, replaced: 0, kept: 0))
        let expected = try BackupAttackTests.snapshot(source.keychain, keepingDates: false).filter {
            $0.attributes[.accessible] != .string(ProtectionClass.afterFirstUnlockThisDeviceOnly.rawValue)
        }
        #expect(expected.count == 9_000)
        let got = try BackupAttackTests.snapshot(target.keychain, keepingDates: false)
        #expect(got == expected)
        #expect(!got.contains { $0.attributes[.accessible]?.stringValue?.hasSuffix("u") == true })
    }

    @Test(
        "An archive restores into keychaind's keychain; a damaged one leaves it unchanged",
        .enabled(if: getuid() == 0, "needs root to name an identity to keychaind"))
    func intoKeychaind() throws {
        let directory = try TemporaryDirectory()
        let (_, file) = try BackupAttackTests.archive(in: directory)
        let daemon = try DaemonProcess()
        defer { daemon.kill() }
        let keychain = Keychain.$environmentOverride.withValue(["KEYCHAIN_DAEMON": daemon.socketPath]) {
            Keychain(service: "api", identity: try? appIdentity())
        }
        #expect(keychain.directory == nil, "the keychain is keychaind's")
        let passphrase = try Keychain.Passcode(copying: BackupAttackTests.passphrase)
        var damaged = try Data(contentsOf: file)
        damaged[damaged.count - 20] ^= 1
        let damagedFile = directory.file("damaged.skb")
        try damaged.write(to: damagedFile)
        let before = try BackupAttackTests.snapshot(keychain)
        let failure = BackupAttackTests.failure {
            try keychain.restore(from: try FileHandle(forReadingFrom: damagedFile), passphrase: passphrase)
        }
        #expect(failure?.contains("damaged or reordered at item 4") == true, "\(failure ?? "restored")")
        #expect(try BackupAttackTests.snapshot(keychain) == before)
        let restored = try keychain.restore(from: try FileHandle(forReadingFrom: file), passphrase: passphrase)
        #expect(restored.added == 3)
        let secrets = try BackupAttackTests.snapshot(keychain).compactMap {
            $0.data.map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(Set(secrets) == ["alice-secret-1", "bob-secret-2", "carol-secret-3"])
        // And back out of keychaind: the same three items, into an archive that verifies.
        let again = directory.file("from-keychaind.skb")
        #expect(try keychain.backup(to: again, passphrase: passphrase, cost: .minimum).itemCount == 3)
        let contents = try Keychain.verifyBackup(from: try FileHandle(forReadingFrom: again), passphrase: passphrase)
        #expect(contents.itemCount == 3)
    }

    /// The last (done, total) a progress closure heard.
    final class ProgressLog: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Int] = []
        func record(_ done: Int, _ total: Int) { lock.withLock { values = [done, total] } }
        var last: [Int] { lock.withLock { values } }
    }
}
