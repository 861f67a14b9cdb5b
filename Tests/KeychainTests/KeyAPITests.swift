import Foundation
import TestSupport
import Testing

@testable import Keychain

/// Typed keys, certificates and identities: made and used inside the keychain.
@Suite("Typed keys and certificates: generate, find, sign, verify, encrypt, decrypt, agree, import")
struct KeyAPITests {
    @Test(
        "A P-256 key made in the keychain signs (verified with its public key); its bytes are kept",
        arguments: Storage.allCases)
    func ellipticCurve(storage: Storage) throws {
        let fixture = try TestKeychain(storage)
        let keychain = fixture.keychain
        let tag = Data("com.example.signing".utf8)
        let key = try keychain.generateKey(.p256, tag: tag, label: "Signing")
        #expect(key.isPrivate && !key.isExtractable && key.publicKey.count == 65)
        let found = try keychain.keys(tagged: tag)
        #expect(found.count == 2, "both halves are stored")
        #expect(Set(found.map(\.isPrivate)) == [true, false])
        #expect(found.allSatisfy { $0.publicKey == key.publicKey && $0.applicationLabel == key.applicationLabel })
        let message = Data("to be signed".utf8)
        let signature = try keychain.sign(message, with: key)
        #expect(try keychain.verify(signature, of: message, with: key))
        #expect(try !keychain.verify(signature, of: Data("other".utf8), with: key))
        // Agreement: both sides reach the same secret.
        let other = try keychain.generateKey(.p256, tag: Data("peer".utf8))
        let ours = try keychain.sharedSecret(with: key, peerPublicKey: other.publicKey)
        let theirs = try keychain.sharedSecret(with: other, peerPublicKey: key.publicKey)
        #expect(ours == theirs && ours.count == 32)
        // Another app cannot use the key, even knowing its reference (an in-memory keychain has one app).
        if storage == .directory {
            let stranger = try fixture.reopened(identity: otherIdentity())
            #expect(keychainError { try stranger.sign(message, with: key) }?.status == -25300)
        }
        #expect(try keychain.remove(key))
        #expect(keychainError { try keychain.sign(message, with: key) } != nil)
    }

    @Test("An RSA key: encrypt for its public half, decrypt inside the keychain")
    func rsa() throws {
        let keychain = try TestKeychain().keychain
        let key = try keychain.generateKey(.rsa(bits: 2048), tag: Data("rsa".utf8))
        let secret = Data("for the RSA key".utf8)
        let sealed = try keychain.encrypt(secret, for: key)
        #expect(try keychain.decrypt(sealed, with: key) == secret)
        let signature = try keychain.sign(secret, with: key, algorithm: .rsaPSSSHA256)
        #expect(try keychain.verify(signature, of: secret, with: key, algorithm: .rsaPSSSHA256))
    }

    @Test(
        "A PKCS#12 file imports as an identity whose key signs for its certificate",
        .enabled(if: OpenSSLCommand.isInstalled, "no openssl command"))
    func pkcs12() throws {
        let keychain = try TestKeychain().keychain
        let directory = try TemporaryDirectory()
        let keyPath = directory.file("key.pem").path
        let certificatePath = directory.file("cert.pem").path
        let file = directory.file("id.p12").path
        for arguments in [
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", keyPath,
                "-out", certificatePath, "-days", "1", "-subj", "/CN=Alice/emailAddress=alice@example.com",
            ],
            ["pkcs12", "-export", "-inkey", keyPath, "-in", certificatePath, "-passout", "pass:pw", "-out", file],
        ] {
            try OpenSSLCommand.run(arguments)
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(keychainError { try keychain.importPKCS12(data, passphrase: "wrong") }?.status == -25293)
        #expect(try keychain.certificates().isEmpty, "a refused import stores nothing")
        let identity = try keychain.importPKCS12(data, passphrase: "pw")
        #expect(identity.certificate.commonNames == ["Alice"])
        #expect(identity.certificate.emailAddresses == ["alice@example.com"])
        #expect(try keychain.identities(named: "Alice").count == 1)
        let message = Data("client hello".utf8)
        let signature = try keychain.sign(message, with: identity.privateKey)
        #expect(try keychain.verify(signature, of: message, with: identity.privateKey))
        #expect(identity.certificate.pem.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        // The certificate alone is no identity.
        #expect(try keychain.remove(identity.privateKey))
        #expect(try keychain.identities().isEmpty)
        #expect(try keychain.certificates(named: "Alice").count == 1)
    }
}

@Suite("Backup through the Keychain API")
struct BackupAPITests {
    @Test("An async backup and restore round-trip with progress; a verify reads the count")
    func asyncRoundTrip() async throws {
        let source = try TestKeychain()
        try await source.keychain.set("s3cret", for: "alice")
        try await source.keychain.set("other", for: "bob")
        let directory = try TemporaryDirectory()
        let file = directory.file("backup.skb")
        let passphrase = try Keychain.Passcode(copying: "a long passphrase")
        let seen = Counter()
        let summary = try await source.keychain.backup(
            to: file, passphrase: passphrase, cost: .minimum, progress: { done, _ in seen.record(done) })
        #expect(summary.itemCount == 2 && seen.value == 2)
        #expect(try await Keychain.verifyBackup(at: file, passphrase: passphrase).itemCount == 2)
        let target = try TestKeychain()
        let restored = try await target.keychain.restore(from: file, passphrase: passphrase)
        #expect(restored.added == 2)
        #expect(try await target.keychain.get("alice") == "s3cret")
        let wrong = try Keychain.Passcode(copying: "not it")
        do {
            _ = try await Keychain.verifyBackup(at: file, passphrase: wrong)
            Issue.record("a wrong passphrase verified")
        } catch {
            #expect(error.status == -25293)
        }
    }

    /// Counts progress calls from the keychain's queue.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var last = 0
        func record(_ done: Int) { lock.withLock { last = done } }
        var value: Int { lock.withLock { last } }
    }
}
