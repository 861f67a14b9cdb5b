import Foundation
import Testing

@testable import KeychainCore

@Suite("Crypto")
struct CryptoTests {
    @Test("AEAD opens what it sealed, and nothing else")
    func aeadRoundTripAndTamper() throws {
        let key = try SecretKey.random()
        let sealed = try AEAD.seal(Data("attack at dawn".utf8), key: key, associatedData: Data("row-1".utf8))
        #expect(sealed.count == 14 + AEAD.overhead)
        let opened = try AEAD.open(sealed, key: key, associatedData: Data("row-1".utf8))
        #expect(String(decoding: opened, as: UTF8.self) == "attack at dawn")

        #expect(status { _ = try AEAD.open(sealed, key: key, associatedData: Data("row-2".utf8)) } == .decode)
        #expect(
            status { _ = try AEAD.open(sealed, key: try SecretKey.random(), associatedData: Data("row-1".utf8)) }
                == .decode)
        for index in sealed.indices {
            var flipped = sealed
            flipped[index] ^= 0x01
            #expect(status { _ = try AEAD.open(flipped, key: key, associatedData: Data("row-1".utf8)) } == .decode)
        }
        #expect(status { _ = try AEAD.open(sealed.prefix(10), key: key, associatedData: Data()) } == .decode)
    }

    @Test("An item's UUID is a version 8 UUID, never the same twice, whose counter sorts it after the one before")
    func itemIdentifiers() throws {
        var seen = Set<UUID>()
        var counters: [UInt64] = []
        var tails = Set<[UInt8]>()
        for _ in 0..<1000 {
            let uuid = try UUID.itemIdentifier()
            #expect(uuid.uuid.6 >> 4 == 8)
            #expect(uuid.uuid.8 >> 6 == 0b10)
            seen.insert(uuid)
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            counters.append(bytes.prefix(6).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            tails.insert(Array(bytes[9...]))
        }
        #expect(seen.count == 1000)
        // One process's items follow each other in byte order (the index grows at one end; other tests running
        // meanwhile take numbers in between); the tail is random.
        #expect(
            zip(counters, counters.dropFirst()).allSatisfy { (1..<1_000_000).contains(($1 &- $0) & 0xFFFF_FFFF_FFFF) })
        #expect(tails.count == 1000)
        let tail = withUnsafeBytes(of: try UUID.itemIdentifier().uuid) { Array($0[9...]) }
        #expect(Set(tail).count > 3)
    }

    @Test("Sealing the same plaintext twice gives different boxes (random nonces)")
    func noncesAreRandom() throws {
        let key = try SecretKey.random()
        let first = try AEAD.seal(Data("same".utf8), key: key, associatedData: Data())
        let second = try AEAD.seal(Data("same".utf8), key: key, associatedData: Data())
        #expect(first != second)
    }

    @Test("A wrapped key opens into locked memory, equal to the original")
    func keyWrapping() throws {
        let key = try SecretKey.random()
        let kek = try SecretKey.random()
        let wrapped = try AEAD.seal(key: key, under: kek, associatedData: Data("ak".utf8))
        let unwrapped = try AEAD.open(key: wrapped, under: kek, associatedData: Data("ak".utf8))
        #expect(unwrapped.constantTimeEquals(key))
        #expect(status { _ = try AEAD.open(key: wrapped, under: kek, associatedData: Data("ck".utf8)) } == .decode)
    }

    @Test("Argon2id is deterministic per salt and cost, and differs by passcode")
    func passcodeHash() throws {
        let salt = [UInt8](repeating: 7, count: PasscodeHash.saltByteCount)
        let one = try PasscodeHash.deriveKey(passcode: try Passcode(copying: "1234"), salt: salt, cost: .minimum)
        let again = try PasscodeHash.deriveKey(passcode: try Passcode(copying: "1234"), salt: salt, cost: .minimum)
        let other = try PasscodeHash.deriveKey(passcode: try Passcode(copying: "1235"), salt: salt, cost: .minimum)
        #expect(one.constantTimeEquals(again))
        #expect(!one.constantTimeEquals(other))
        #expect(
            status {
                _ = try PasscodeHash.deriveKey(passcode: try Passcode(copying: "1234"), salt: [1, 2], cost: .minimum)
            } == .decode)
        #expect(status { _ = try PasscodeCost(passes: 0, memoryBytes: 1 << 20).validated() } == .param)
    }

    @Test("Keyed BLAKE2b depends on the key and derivation on every input")
    func keyedHash() throws {
        let key = try SecretKey.random()
        let otherKey = try SecretKey.random()
        let message = Data("svce=mail".utf8)
        #expect(try KeyedHash.hash(message, key: key) == KeyedHash.hash(message, key: key))
        #expect(try KeyedHash.hash(message, key: key) != KeyedHash.hash(message, key: otherKey))
        #expect(try KeyedHash.hash(message, key: key, outputByteCount: 16).count == 16)
        let derived = try KeyedHash.deriveKey(from: key, context: "a")
        #expect(!derived.constantTimeEquals(try KeyedHash.deriveKey(from: key, context: "b")))
        #expect(!derived.constantTimeEquals(try KeyedHash.deriveKey(from: key, context: "a", secretInput: otherKey)))
        #expect(derived.constantTimeEquals(try KeyedHash.deriveKey(from: key, context: "a")))
    }

    @Test("A key sealed to an X25519 public key opens only with its private key")
    func publicKeySeal() throws {
        let recipient = try KeyAgreementKeyPair.generate()
        let fileKey = try SecretKey.random()
        let sealed = try PublicKeySeal.seal(key: fileKey, to: recipient.publicKey, associatedData: Data("file".utf8))
        #expect(sealed.count == PublicKeySeal.sealedByteCount)
        let opened = try PublicKeySeal.open(sealed, with: recipient, associatedData: Data("file".utf8))
        #expect(opened.constantTimeEquals(fileKey))
        let stranger = try KeyAgreementKeyPair.generate()
        #expect(
            status { _ = try PublicKeySeal.open(sealed, with: stranger, associatedData: Data("file".utf8)) } == .decode)
        let rebuilt = try KeyAgreementKeyPair(privateKey: recipient.privateKey)
        #expect(rebuilt.publicKey == recipient.publicKey)
    }

    @Test("Padding hides the exact length and comes off again")
    func padding() throws {
        for count in [0, 1, 31, 32, 33, 100] {
            let bytes = [UInt8](repeating: 0xAB, count: count)
            let padded = Padding.pad(bytes)
            #expect(padded.count % Padding.blockSize == 0)
            #expect(padded.count > count)
            #expect(Array(padded[try Padding.payload(of: padded)]) == bytes)
        }
        var tooLong = Padding.pad([1, 2, 3])
        tooLong[0] = 100
        #expect(status { _ = try Padding.payload(of: tooLong) } == .decode)
        #expect(status { _ = try Padding.payload(of: [0, 0, 0]) } == .decode)
        #expect(status { _ = try Padding.payload(of: [UInt8](repeating: 0, count: 33)) } == .decode)
    }

    @Test("Keys are never printed")
    func redaction() throws {
        let key = try SecretKey.random()
        #expect("\(key)" == "SecretKey(redacted)")
        #expect(String(reflecting: key).contains("redacted") || !String(reflecting: key).isEmpty)
    }
}
