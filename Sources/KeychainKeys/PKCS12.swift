import CLibCrypto
import Foundation
import KeychainCore
import Synchronization

/// A PKCS#12 (`.p12`, `.pfx`) file's contents: the private key, its certificate and the rest of the chain.
package struct PKCS12Contents: Sendable {
    /// The private key.
    package var privateKey: AsymmetricKey
    /// The certificate of the private key.
    package var certificate: Certificate
    /// The other certificates of the chain, as the file lists them.
    package var chain: [Certificate]
    /// The key's friendly name, when the file gives one.
    package var label: String?
    /// The key's local key ID, when the file gives one.
    package var keyID: Data?

    /// Reads a PKCS#12 file with its passphrase. Files made by older tools (Keychain Access, `openssl -legacy`) seal
    /// their certificates with RC2 or 3DES, which OpenSSL keeps in its legacy provider: it is loaded for them.
    /// A wrong passphrase is errSecAuthFailed; bytes that are not a PKCS#12 file are errSecDecode.
    package static func read(_ data: Data, passphrase: String) throws(EngineError) -> PKCS12Contents {
        Self.loadProviders()
        let parsed: OpaquePointer? = data.withUnsafeBytes { bytes in
            var cursor = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return cursor == nil ? nil : d2i_PKCS12(nil, &cursor, bytes.count)
        }
        guard let parsed else {
            ERR_clear_error()
            throw EngineError(.decode, "\(data.count) bytes are not a PKCS#12 file")
        }
        defer { PKCS12_free(parsed) }
        guard PKCS12_verify_mac(parsed, passphrase, Int32(passphrase.utf8.count)) == 1 else {
            ERR_clear_error()
            throw EngineError(.authFailed, "the passphrase does not open this PKCS#12 file")
        }
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var others: OpaquePointer?
        guard PKCS12_parse(parsed, passphrase, &key, &certificate, &others) == 1 else {
            throw OpenSSLFailure.error(.decode, "read the PKCS#12 file's key and certificates")
        }
        var chain: [Certificate] = []
        if let others {
            while OPENSSL_sk_num(others) > 0, let next = OPENSSL_sk_shift(others) {
                if let adopted = try? Certificate(adopting: OpaquePointer(next)) { chain.append(adopted) }
            }
            OPENSSL_sk_free(others)
        }
        guard let key, let certificate else {
            if let key { EVP_PKEY_free(key) }
            if let certificate { X509_free(certificate) }
            throw EngineError(.decode, "the PKCS#12 file holds no private key with its certificate")
        }
        let leaf: Certificate
        do throws(EngineError) {
            leaf = try Certificate(adopting: certificate)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
        let privateKey = try AsymmetricKey.adopting(key, isPrivate: true)
        var length: Int32 = 0
        let label = X509_alias_get0(certificate, &length).map {
            String(decoding: UnsafeBufferPointer(start: $0, count: Int(length)), as: UTF8.self)
        }
        let keyID = X509_keyid_get0(certificate, &length).map { Data(bytes: $0, count: Int(length)) }
        return PKCS12Contents(privateKey: privateKey, certificate: leaf, chain: chain, label: label, keyID: keyID)
    }

    /// Loads OpenSSL's default and legacy providers once (the legacy one may be missing: modern files still read).
    private static let providers = Mutex(false)

    private static func loadProviders() {
        providers.withLock { loaded in
            guard !loaded else { return }
            _ = OSSL_PROVIDER_load(nil, "default")
            _ = OSSL_PROVIDER_load(nil, "legacy")
            ERR_clear_error()
            loaded = true
        }
    }
}
