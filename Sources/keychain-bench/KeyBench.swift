import CLibCrypto
import Foundation
import KeychainKeys

/// Key operations through the key layer (KeychainKeys, under `SecKey`) beside the same operation made directly on
/// libcrypto in this process (the floor: one `EVP_PKEY_CTX` per operation, as the layer makes): sign, verify and
/// ECDH on P-256; sign, verify, encrypt and decrypt on RSA-2048.
enum KeyBench {
    /// One operation's figures, named as in the JSON report.
    struct Result: Codable {
        var operation: String
        var ours_p50_us: Double
        var floor_p50_us: Double
    }

    static func run(operations count: Int = 400) throws -> [Result] {
        let p256 = try AsymmetricKey.generateEC(.p256)
        let peer = try AsymmetricKey.generateEC(.p256).publicKey()
        let rsa = try AsymmetricKey.generateRSA(bits: 2048)
        let message = Data(repeating: 0x42, count: 64)
        let digest = try Digest.sha256.hash(message)
        let ecSignature = try p256.sign(message, scheme: .ecdsaX962(.sha256, isDigest: false))
        let rsaSignature = try rsa.sign(message, scheme: .rsaPKCS1v15(.sha256, isDigest: false))
        let ciphertext = try rsa.encrypt(Data(repeating: 7, count: 32), padding: .oaep(.sha256))
        let cases: [(String, () throws -> Void, () throws -> Void)] = [
            (
                "P-256 sign", { _ = try p256.sign(message, scheme: .ecdsaX962(.sha256, isDigest: false)) },
                { try Floor.sign(p256, digest, rsaPadding: nil) }
            ),
            (
                "P-256 verify",
                { _ = try p256.verify(ecSignature, of: message, scheme: .ecdsaX962(.sha256, isDigest: false)) },
                { try Floor.verify(p256, ecSignature, digest, rsaPadding: nil) }
            ),
            (
                "P-256 ECDH", { _ = try p256.sharedSecret(with: peer, cofactor: false) },
                { try Floor.derive(p256, peer) }
            ),
            (
                "RSA-2048 sign", { _ = try rsa.sign(message, scheme: .rsaPKCS1v15(.sha256, isDigest: false)) },
                { try Floor.sign(rsa, digest, rsaPadding: RSA_PKCS1_PADDING) }
            ),
            (
                "RSA-2048 verify",
                { _ = try rsa.verify(rsaSignature, of: message, scheme: .rsaPKCS1v15(.sha256, isDigest: false)) },
                { try Floor.verify(rsa, rsaSignature, digest, rsaPadding: RSA_PKCS1_PADDING) }
            ),
            (
                "RSA-2048 encrypt OAEP",
                { _ = try rsa.encrypt(Data(repeating: 7, count: 32), padding: .oaep(.sha256)) },
                { try Floor.encrypt(rsa) }
            ),
            (
                "RSA-2048 decrypt OAEP", { _ = try rsa.decrypt(ciphertext, padding: .oaep(.sha256)) },
                { try Floor.decrypt(rsa, ciphertext) }
            ),
        ]
        var results: [Result] = []
        for (name, ours, floor) in cases {
            let runs = name.hasPrefix("RSA-2048 sign") || name.hasPrefix("RSA-2048 decrypt") ? count / 4 : count
            var oursRecorder = LatencyRecorder(capacity: runs)
            var floorRecorder = LatencyRecorder(capacity: runs)
            // Taking turns, so a noisy moment touches both alike.
            for _ in 0..<runs {
                try oursRecorder.time(ours)
                try floorRecorder.time(floor)
            }
            results.append(
                Result(
                    operation: name, ours_p50_us: oursRecorder.figures.p50_us,
                    floor_p50_us: floorRecorder.figures.p50_us))
        }
        return results
    }

    /// The floor: each operation on libcrypto directly, with the key's `EVP_PKEY`.
    private enum Floor {
        static func context(_ key: AsymmetricKey) throws -> OpaquePointer {
            guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.handle, nil) else { throw BenchError("no context") }
            return context
        }

        static func sign(_ key: AsymmetricKey, _ digest: Data, rsaPadding: Int32?) throws {
            let context = try context(key)
            defer { EVP_PKEY_CTX_free(context) }
            EVP_PKEY_sign_init(context)
            if let rsaPadding {
                EVP_PKEY_CTX_set_rsa_padding(context, rsaPadding)
                EVP_PKEY_CTX_set_signature_md(context, EVP_sha256())
            }
            var signature = [UInt8](repeating: 0, count: 512)
            var length = signature.count
            let done = digest.withUnsafeBytes { EVP_PKEY_sign(context, &signature, &length, $0.baseAddress, $0.count) }
            guard done == 1 else { throw BenchError("the floor's signature failed") }
        }

        static func verify(_ key: AsymmetricKey, _ signature: Data, _ digest: Data, rsaPadding: Int32?) throws {
            let context = try context(key)
            defer { EVP_PKEY_CTX_free(context) }
            EVP_PKEY_verify_init(context)
            if let rsaPadding {
                EVP_PKEY_CTX_set_rsa_padding(context, rsaPadding)
                EVP_PKEY_CTX_set_signature_md(context, EVP_sha256())
            }
            let done = signature.withUnsafeBytes { signatureBytes in
                digest.withUnsafeBytes {
                    EVP_PKEY_verify(
                        context, signatureBytes.baseAddress, signatureBytes.count, $0.baseAddress, $0.count)
                }
            }
            guard done == 1 else { throw BenchError("the floor's verification failed") }
        }

        static func derive(_ key: AsymmetricKey, _ peer: AsymmetricKey) throws {
            let context = try context(key)
            defer { EVP_PKEY_CTX_free(context) }
            EVP_PKEY_derive_init(context)
            EVP_PKEY_derive_set_peer(context, peer.handle)
            var secret = [UInt8](repeating: 0, count: 66)
            var length = secret.count
            guard EVP_PKEY_derive(context, &secret, &length) == 1 else { throw BenchError("the floor's ECDH failed") }
        }

        static func encrypt(_ key: AsymmetricKey) throws {
            let context = try context(key)
            defer { EVP_PKEY_CTX_free(context) }
            EVP_PKEY_encrypt_init(context)
            EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING)
            EVP_PKEY_CTX_set_rsa_oaep_md(context, EVP_sha256())
            EVP_PKEY_CTX_set_rsa_mgf1_md(context, EVP_sha256())
            let plain = [UInt8](repeating: 7, count: 32)
            var output = [UInt8](repeating: 0, count: 256)
            var length = output.count
            guard EVP_PKEY_encrypt(context, &output, &length, plain, plain.count) == 1 else {
                throw BenchError("the floor's encryption failed")
            }
        }

        static func decrypt(_ key: AsymmetricKey, _ ciphertext: Data) throws {
            let context = try context(key)
            defer { EVP_PKEY_CTX_free(context) }
            EVP_PKEY_decrypt_init(context)
            EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING)
            EVP_PKEY_CTX_set_rsa_oaep_md(context, EVP_sha256())
            EVP_PKEY_CTX_set_rsa_mgf1_md(context, EVP_sha256())
            var output = [UInt8](repeating: 0, count: 256)
            var length = output.count
            let done = ciphertext.withUnsafeBytes {
                EVP_PKEY_decrypt(context, &output, &length, $0.baseAddress, $0.count)
            }
            guard done == 1 else { throw BenchError("the floor's decryption failed") }
        }
    }
}
