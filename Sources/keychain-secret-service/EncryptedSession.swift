import CLibCrypto
import Foundation
import KeychainCore
import KeychainKeys

/// The Secret Service's `dh-ietf1024-sha256-aes128-cbc-pkcs7` session: Diffie-Hellman in the 1024-bit MODP group of
/// RFC 2409 (the second Oakley group, generator 2) with the client's public value; the shared secret, big-endian and
/// padded to the prime's 128 bytes, through HKDF-SHA256 with no salt and no info to a 16-byte AES-128 key; each
/// secret then travels AES-128-CBC with PKCS#7 padding, its 16-byte IV as the secret's parameters.
struct EncryptedSession {
    /// The AES key, wiped when the session closes.
    private(set) var key: [UInt8]

    static let prime =
        "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
        + "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
        + "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF"
    static let byteCount = 128
    /// The private exponent's length. A 1024-bit group gives about 80 bits of security, and the best attack on a short
    /// exponent (Pollard's kangaroo) costs 2^(bits/2): 256 bits cost more than the group itself (NIST SP 800-56A asks
    /// at least twice the security strength), and make each exponentiation a quarter of a full-length one's — the
    /// two of every `OpenSession` were half of the service's time under python keyring, which opens a session per
    /// call.
    static let exponentBits: Int32 = 256

    /// Agrees on a key with the client's public value; returns the session and this side's public value.
    static func open(clientPublic: Data) throws(BusFailure) -> (session: EncryptedSession, servicePublic: Data) {
        guard clientPublic.count <= byteCount, !clientPublic.isEmpty else {
            throw invalid("the client's public value is \(clientPublic.count) bytes; at most 128")
        }
        guard let context = BN_CTX_new() else { throw failure("start Diffie-Hellman") }
        defer { BN_CTX_free(context) }
        var prime: OpaquePointer?
        var generator: OpaquePointer?
        guard BN_hex2bn(&prime, Self.prime) > 0, let prime else { throw failure("read the group's prime") }
        defer { BN_free(prime) }
        guard BN_dec2bn(&generator, "2") > 0, let generator else { throw failure("read the generator") }
        defer { BN_free(generator) }
        guard
            let peer = clientPublic.withUnsafeBytes({
                BN_bin2bn($0.bindMemory(to: UInt8.self).baseAddress, Int32($0.count), nil)
            })
        else { throw failure("read the client's public value") }
        defer { BN_free(peer) }
        // 1 < y < p - 1: anything else (0, 1, p - 1, p or more) gives a secret an attacker knows.
        guard let limit = BN_dup(prime), BN_sub_word(limit, 1) == 1 else { throw failure("compute p - 1") }
        defer { BN_free(limit) }
        guard BN_cmp(peer, BN_value_one()) > 0, BN_cmp(peer, limit) < 0 else {
            throw invalid("the client's public value is not in the group (it must be between 1 and p - 1)")
        }
        guard let exponent = BN_secure_new(),
            BN_rand(exponent, Self.exponentBits, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY) == 1
        else { throw failure("make a private exponent") }
        defer { BN_clear_free(exponent) }
        // Exponentiation in constant time: its timing must not tell the exponent.
        BN_set_flags(exponent, BN_FLG_CONSTTIME)
        guard let own = BN_new(), let shared = BN_secure_new() else { throw failure("allocate") }
        defer {
            BN_free(own)
            BN_clear_free(shared)
        }
        guard BN_mod_exp(own, generator, exponent, prime, context) == 1,
            BN_mod_exp(shared, peer, exponent, prime, context) == 1
        else { throw failure("compute the Diffie-Hellman values") }
        var secret = [UInt8](repeating: 0, count: byteCount)
        var publicBytes = [UInt8](repeating: 0, count: byteCount)
        guard BN_bn2binpad(shared, &secret, Int32(byteCount)) == byteCount,
            BN_bn2binpad(own, &publicBytes, Int32(byteCount)) == byteCount
        else { throw failure("write the Diffie-Hellman values") }
        defer { OPENSSL_cleanse(&secret, secret.count) }
        let key = try hkdfSHA256(secret, length: 16)
        return (EncryptedSession(key: key), Data(publicBytes))
    }

    /// A secret sealed for the client: (IV, ciphertext).
    func seal(_ plaintext: Data) throws(BusFailure) -> (parameters: Data, value: Data) {
        var iv = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&iv, 16) == 1 else { throw Self.failure("make an IV") }
        return (Data(iv), try Self.cipher(plaintext, key: key, iv: iv, encrypting: true))
    }

    /// A secret the client sealed; a wrong IV length or padding is InvalidArgs.
    func open(_ value: Data, parameters: Data) throws(BusFailure) -> Data {
        guard parameters.count == 16 else {
            throw Self.invalid("the secret's parameters are \(parameters.count) bytes, not a 16-byte IV")
        }
        guard value.count % 16 == 0, !value.isEmpty else {
            throw Self.invalid("the secret's value is \(value.count) bytes, not whole AES blocks")
        }
        return try Self.cipher(value, key: key, iv: [UInt8](parameters), encrypting: false)
    }

    /// Wipes the key.
    mutating func close() {
        OPENSSL_cleanse(&key, key.count)
    }

    /// HKDF-SHA256 (RFC 5869) with no salt (a hash's length of zeros) and no info.
    static func hkdfSHA256(_ input: [UInt8], length: Int) throws(BusFailure) -> [UInt8] {
        let salt = [UInt8](repeating: 0, count: 32)
        let pseudoRandom = try hmac(key: salt, input)
        defer { _ = pseudoRandom }
        let block = try hmac(key: pseudoRandom, [1])
        return Array(block.prefix(length))
    }

    private static func hmac(key: [UInt8], _ message: [UInt8]) throws(BusFailure) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 32
        guard HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &output, &length) != nil else {
            throw failure("compute HMAC-SHA256")
        }
        return output
    }

    private static func cipher(_ input: Data, key: [UInt8], iv: [UInt8], encrypting: Bool) throws(BusFailure) -> Data {
        do throws(EngineError) {
            return try AESCipher.cbc(input, key: Data(key), iv: Data(iv), encrypting: encrypting)
        } catch  where error.code == .param {
            throw invalid("the secret does not decrypt: its padding is wrong (another session's key, or changed)")
        } catch {
            throw failure("run AES-128-CBC")
        }
    }

    private static func invalid(_ message: String) -> BusFailure {
        BusFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }

    private static func failure(_ what: String) -> BusFailure {
        ERR_clear_error()
        return BusFailure(name: "org.freedesktop.DBus.Error.Failed", message: "cannot \(what)")
    }
}
