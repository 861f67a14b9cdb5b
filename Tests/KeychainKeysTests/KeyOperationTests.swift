import Foundation
import KeychainCore
import Testing

@testable import KeychainKeys

/// Each signature scheme, padding and exchange on the keys it is for; a changed byte fails; a wrong pairing is
/// errSecParam.
@Suite("Keys: signatures, encryption, key exchange")
struct KeyOperationTests {
    static let rsaSchemes: [SignatureScheme] =
        Digest.allCases.flatMap { digest in
            [
                .rsaPKCS1v15(digest, isDigest: false), .rsaPKCS1v15(digest, isDigest: true),
                .rsaPSS(digest, isDigest: false), .rsaPSS(digest, isDigest: true),
            ]
        } + [.rsaPKCS1v15Raw]
    static let ecSchemes: [SignatureScheme] =
        Digest.allCases.flatMap { digest in
            [
                .ecdsaX962(digest, isDigest: false), .ecdsaX962(digest, isDigest: true),
                .ecdsaRFC4754(digest, isDigest: false), .ecdsaRFC4754(digest, isDigest: true),
            ]
        } + [.ecdsaX962(nil, isDigest: true), .ecdsaRFC4754(nil, isDigest: true)]

    /// The input a scheme takes for `message`: its digest when the scheme signs digests.
    private func input(_ message: Data, for scheme: SignatureScheme) throws -> Data {
        switch scheme {
        case .rsaPKCS1v15(let digest, true), .rsaPSS(let digest, true), .ecdsaX962(let digest?, true),
            .ecdsaRFC4754(let digest?, true):
            return try digest.hash(message)
        case .rsaPKCS1v15Raw: return Data(message.prefix(20))
        default: return message
        }
    }

    @Test("Every RSA and ECDSA scheme signs and verifies; a flipped byte of message or signature fails")
    func signatures() throws {
        let rsa = try AsymmetricKey.generateRSA(bits: 2048)
        let message = Data("the message signed".utf8)
        for (key, schemes) in [(rsa, Self.rsaSchemes), (try AsymmetricKey.generateEC(.p384), Self.ecSchemes)] {
            let publicKey = try key.publicKey()
            for scheme in schemes {
                let signed = try input(message, for: scheme)
                let signature = try key.sign(signed, scheme: scheme)
                #expect(try publicKey.verify(signature, of: signed, scheme: scheme), "\(scheme)")
                var flipped = [UInt8](signature)
                flipped[flipped.count / 2] ^= 0x40
                #expect(try !publicKey.verify(Data(flipped), of: signed, scheme: scheme), "\(scheme)")
                var changed = [UInt8](signed)
                changed[0] ^= 1
                #expect(try !publicKey.verify(signature, of: Data(changed), scheme: scheme), "\(scheme)")
            }
        }
        // RFC 4754 signatures are r || s, each the field's length.
        let p521 = try AsymmetricKey.generateEC(.p521)
        #expect(try p521.sign(message, scheme: .ecdsaRFC4754(.sha512, isDigest: false)).count == 132)
        // Raw RSA: one whole block.
        let block = Data([0]) + Data(repeating: 7, count: 255)
        let raw = try rsa.sign(block, scheme: .rsaRaw)
        #expect(try rsa.verify(raw, of: block, scheme: .rsaRaw))
    }

    @Test("Wrong pairings are errSecParam: an EC scheme on RSA, a digest of the wrong length, a public key signing")
    func refusals() throws {
        let rsa = try AsymmetricKey.generateRSA(bits: 1024)
        let ec = try AsymmetricKey.generateEC(.p256)
        let message = Data("m".utf8)
        let attempts: [() throws -> Void] = [
            { _ = try rsa.sign(message, scheme: .ecdsaX962(.sha256, isDigest: false)) },
            { _ = try ec.sign(message, scheme: .rsaPSS(.sha256, isDigest: false)) },
            { _ = try ec.sign(message, scheme: .ecdsaX962(.sha256, isDigest: true)) },
            { _ = try ec.publicKey().sign(message, scheme: .ecdsaX962(.sha256, isDigest: false)) },
            { _ = try rsa.sign(message, scheme: .rsaRaw) },
            { _ = try ec.encrypt(message, padding: .pkcs1) },
            { _ = try rsa.encrypt(Data(repeating: 1, count: 128 - 2 * 32 - 1), padding: .oaep(.sha256)) },
            { _ = try rsa.sharedSecret(with: rsa, cofactor: false) },
            { _ = try ec.sharedSecret(with: AsymmetricKey.generateEC(.p384), cofactor: false) },
        ]
        for attempt in attempts {
            let error = #expect(throws: EngineError.self) { try attempt() }
            #expect(error?.code == .param, "\(String(describing: error))")
        }
    }

    @Test("RSA encryption with each padding round-trips; another key's ciphertext or a changed one does not decrypt")
    func encryption() throws {
        let key = try AsymmetricKey.generateRSA(bits: 2048)
        let other = try AsymmetricKey.generateRSA(bits: 2048)
        let paddings: [EncryptionPadding] = [.pkcs1] + Digest.allCases.map { .oaep($0) }
        for padding in paddings {
            let plaintext = Data(repeating: 0x5A, count: padding.maximumPlaintext(blockSize: 256))
            let ciphertext = try key.publicKey().encrypt(plaintext, padding: padding)
            #expect(ciphertext.count == 256)
            #expect(try key.decrypt(ciphertext, padding: padding) == plaintext)
            #expect(throws: EngineError.self) { try other.decrypt(ciphertext, padding: padding) }
            var changed = [UInt8](ciphertext)
            changed[100] ^= 1
            if case .oaep = padding {
                #expect(throws: EngineError.self) { try key.decrypt(Data(changed), padding: padding) }
            }
        }
        let block = Data([0]) + Data(repeating: 9, count: 255)
        #expect(try key.decrypt(key.encrypt(block, padding: .raw), padding: .raw) == block)
    }

    @Test(
        "ECDH: both sides agree, standard and cofactor, on each curve; X9.63 KDF as specified",
        arguments: AsymmetricKey.Curve.allCases)
    func keyExchange(curve: AsymmetricKey.Curve) throws {
        let (alice, bob) = (try AsymmetricKey.generateEC(curve), try AsymmetricKey.generateEC(curve))
        for cofactor in [false, true] {
            let one = try alice.sharedSecret(with: bob.publicKey(), cofactor: cofactor)
            let two = try bob.sharedSecret(with: alice.publicKey(), cofactor: cofactor)
            #expect(one == two && one.count == curve.fieldBytes)
        }
        // X9.63: the first block is SHA-256(Z || 00000001 || info).
        let secret = Data(repeating: 3, count: 32)
        let derived = try X963KDF.derive(secret, sharedInfo: Data("info".utf8), size: 40, digest: .sha256)
        let first = try Digest.sha256.hash(secret + Data([0, 0, 0, 1]) + Data("info".utf8))
        #expect(derived.count == 40 && derived.prefix(32) == first)
    }
}
