import CLibCrypto
import Foundation
import KeychainCore

extension AsymmetricKey {
    /// The public key as PEM `PUBLIC KEY` (X.509 SubjectPublicKeyInfo), as `openssl` and most tools read it.
    package func publicKeyPEM() throws(EngineError) -> String {
        try Self.pem("write the public key as PEM") { PEM_write_bio_PUBKEY($0, handle) }
    }

    /// The private key as PEM `PRIVATE KEY` (PKCS#8, unencrypted), for handing to another tool; the caller wipes it.
    package func privateKeyPEM() throws(EngineError) -> String {
        guard isPrivate else { throw EngineError(.param, "a public key has no private half to write") }
        return try Self.pem("write the private key as PEM") {
            PEM_write_bio_PrivateKey($0, handle, nil, nil, 0, nil, nil)
        }
    }

    /// What a PEM writer writes into a memory BIO.
    private static func pem(_ what: String, _ write: (OpaquePointer) -> Int32) throws(EngineError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLFailure.error(.internalComponent, what) }
        defer { BIO_free(bio) }
        try OpenSSLFailure.check(write(bio), what)
        var text = ""
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let count = BIO_read(bio, &chunk, Int32(chunk.count)), count > 0 {
            text += String(decoding: chunk.prefix(Int(count)), as: UTF8.self)
        }
        chunk.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
        return text
    }
}
