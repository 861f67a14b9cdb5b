import Foundation
import KeychainTPM
import TestSupport
import Testing

@Suite(
    "TPM P-256 keys",
    .enabled(if: TPMTests.available, TPMTests.skipComment),
    .enabled(if: OpenSSLCommand.isInstalled, "no openssl command"))
struct P256KeyTests {
    /// The DER SubjectPublicKeyInfo header of a P-256 key (id-ecPublicKey, prime256v1, a 66-byte BIT STRING).
    private static let publicKeyInfoHeader: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
        0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    @Test("a TPM key's ECDSA signature verifies with openssl, and not over another message")
    func signatureVerifies() throws {
        let tpm = try SoftwareTPM()
        let directory = try TemporaryDirectory()
        let context = try TPMContext.open(tcti: tpm.tcti)
        let key = try context.createP256Key(auth: Array("key passcode".utf8))
        #expect(key.publicKey.count == 65 && key.publicKey[0] == 0x04)
        let message = directory.file("message")
        try Data("pay 10 to Bob".utf8).write(to: message)
        let digestFile = directory.file("digest")
        try OpenSSLCommand.run(["dgst", "-sha256", "-binary", "-out", digestFile.path, message.path])
        let digest = [UInt8](try Data(contentsOf: digestFile))
        let signature = try context.sign(digest: digest, with: key, auth: Array("key passcode".utf8))
        let publicKey = directory.file("public.der")
        try Data(Self.publicKeyInfoHeader + key.publicKey).write(to: publicKey)
        let signatureFile = directory.file("signature.der")
        try Data(signature).write(to: signatureFile)
        let verify = [
            "dgst", "-sha256", "-verify", publicKey.path, "-keyform", "DER", "-signature", signatureFile.path,
        ]
        #expect(try OpenSSLCommand.succeeds(verify + [message.path]))
        let other = directory.file("other")
        try Data("pay 1000 to Bob".utf8).write(to: other)
        #expect(try !OpenSSLCommand.succeeds(verify + [other.path]))
        let wrong = #expect(throws: TPMError.self) {
            try context.sign(digest: digest, with: key, auth: Array("guess".utf8))
        }
        #expect(wrong?.code == .authorizationFailed, "\(String(describing: wrong))")
    }

    @Test("ECDH inside the TPM agrees with openssl's on the other side")
    func keyAgreement() throws {
        let tpm = try SoftwareTPM()
        let directory = try TemporaryDirectory()
        let context = try TPMContext.open(tcti: tpm.tcti)
        let key = try context.createP256Key()
        let peerKey = directory.file("peer.pem")
        try OpenSSLCommand.run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", peerKey.path])
        let peerPublic = directory.file("peer.der")
        try OpenSSLCommand.run(["ec", "-in", peerKey.path, "-pubout", "-outform", "DER", "-out", peerPublic.path])
        let peerPoint = Array([UInt8](try Data(contentsOf: peerPublic)).suffix(65))
        let tpmPublic = directory.file("tpm.der")
        try Data(Self.publicKeyInfoHeader + key.publicKey).write(to: tpmPublic)
        let secretFile = directory.file("secret")
        try OpenSSLCommand.run([
            "pkeyutl", "-derive", "-inkey", peerKey.path, "-peerkey", tpmPublic.path, "-peerform", "DER", "-out",
            secretFile.path,
        ])
        let shared = try context.sharedSecret(with: key, peer: peerPoint)
        #expect(shared == [UInt8](try Data(contentsOf: secretFile)))
        var offCurve = peerPoint
        offCurve[64] ^= 1
        let error = #expect(throws: TPMError.self) { try context.sharedSecret(with: key, peer: offCurve) }
        #expect(error?.code == .invalidArgument, "\(String(describing: error))")
    }

    @Test("attack: a TPM key's blob is useless on another TPM")
    func foreignTPM() throws {
        let first = try SoftwareTPM()
        let second = try SoftwareTPM()
        let key = try TPMContext.open(tcti: first.tcti).createP256Key()
        let stolen = try TPMP256Key(blob: try TPMBlob(serialized: key.blob.serialized()))
        #expect(stolen.publicKey == key.publicKey)
        let other = try TPMContext.open(tcti: second.tcti)
        let error = #expect(throws: TPMError.self) {
            try other.sign(digest: [UInt8](repeating: 7, count: 32), with: stolen)
        }
        #expect(error?.code == .foreignBlob, "\(String(describing: error))")
        #expect(throws: TPMError.self) { try other.sharedSecret(with: stolen, peer: key.publicKey) }
    }
}
