import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainKeys

/// What this layer makes, the `openssl` command accepts, and what `openssl` makes, this layer accepts.
@Suite(
    "Keys: interoperability with the openssl command", .enabled(if: OpenSSLCommand.isInstalled, "no openssl command"))
struct OpenSSLInteropTests {
    @Test("Signatures both ways: ECDSA (DER), RSA PKCS#1 v1.5 and PSS, on SHA-256")
    func signatures() throws {
        let directory = try TemporaryDirectory()
        let message = directory.file("message")
        try Data("signed by both sides".utf8).write(to: message)
        let cases: [(AsymmetricKey, SignatureScheme, [String])] = [
            (try AsymmetricKey.generateEC(.p256), .ecdsaX962(.sha256, isDigest: false), []),
            (try AsymmetricKey.generateRSA(bits: 2048), .rsaPKCS1v15(.sha256, isDigest: false), []),
            (
                try AsymmetricKey.generateRSA(bits: 2048), .rsaPSS(.sha256, isDigest: false),
                ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:32", "-sigopt", "rsa_mgf1_md:sha256"]
            ),
        ]
        for (index, (key, scheme, options)) in cases.enumerated() {
            let publicPEM = directory.file("public\(index).pem")
            let privatePEM = directory.file("private\(index).pem")
            try key.publicKeyPEM().write(to: publicPEM, atomically: true, encoding: .utf8)
            try key.privateKeyPEM().write(to: privatePEM, atomically: true, encoding: .utf8)
            // Ours, checked by openssl.
            let ours = directory.file("ours\(index).sig")
            try key.sign(try Data(contentsOf: message), scheme: scheme).write(to: ours)
            #expect(
                try OpenSSLCommand.succeeds(
                    ["dgst", "-sha256", "-verify", publicPEM.path, "-signature", ours.path] + options + [message.path]),
                "\(scheme)")
            // openssl's, checked here; and a changed one refused by both.
            let theirs = directory.file("theirs\(index).sig")
            try OpenSSLCommand.run(
                ["dgst", "-sha256", "-sign", privatePEM.path, "-out", theirs.path] + options + [message.path])
            let signature = try Data(contentsOf: theirs)
            #expect(try key.publicKey().verify(signature, of: try Data(contentsOf: message), scheme: scheme))
            var changed = [UInt8](signature)
            changed[changed.count - 1] ^= 1
            try Data(changed).write(to: theirs)
            #expect(
                try !OpenSSLCommand.succeeds(
                    ["dgst", "-sha256", "-verify", publicPEM.path, "-signature", theirs.path] + options
                        + [message.path]))
        }
    }

    @Test("RSA-OAEP (SHA-256) and PKCS#1 v1.5 ciphertexts both ways")
    func encryption() throws {
        let directory = try TemporaryDirectory()
        let key = try AsymmetricKey.generateRSA(bits: 2048)
        let publicPEM = directory.file("public.pem")
        let privatePEM = directory.file("private.pem")
        try key.publicKeyPEM().write(to: publicPEM, atomically: true, encoding: .utf8)
        try key.privateKeyPEM().write(to: privatePEM, atomically: true, encoding: .utf8)
        let plaintext = Data("a secret for the other side".utf8)
        let plainFile = directory.file("plain")
        try plaintext.write(to: plainFile)
        let cases: [(EncryptionPadding, [String])] = [
            (
                .oaep(.sha256),
                [
                    "-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha256",
                    "-pkeyopt", "rsa_mgf1_md:sha256",
                ]
            ),
            (.pkcs1, ["-pkeyopt", "rsa_padding_mode:pkcs1"]),
        ]
        for (padding, options) in cases {
            let ours = directory.file("ours.bin")
            try key.encrypt(plaintext, padding: padding).write(to: ours)
            let opened = try OpenSSLCommand.run(
                ["pkeyutl", "-decrypt", "-inkey", privatePEM.path, "-in", ours.path] + options)
            #expect(opened == String(decoding: plaintext, as: UTF8.self))
            let theirs = directory.file("theirs.bin")
            try OpenSSLCommand.run(
                ["pkeyutl", "-encrypt", "-pubin", "-inkey", publicPEM.path, "-in", plainFile.path, "-out", theirs.path]
                    + options)
            #expect(try key.decrypt(try Data(contentsOf: theirs), padding: padding) == plaintext)
        }
    }

    @Test("An ECDH secret agreed here is the one openssl derives")
    func keyExchange() throws {
        let directory = try TemporaryDirectory()
        let (ours, peer) = (try AsymmetricKey.generateEC(.p256), try AsymmetricKey.generateEC(.p256))
        let ourPEM = directory.file("ours.pem")
        let peerPEM = directory.file("peer.pem")
        let secretFile = directory.file("secret")
        try ours.privateKeyPEM().write(to: ourPEM, atomically: true, encoding: .utf8)
        try peer.publicKeyPEM().write(to: peerPEM, atomically: true, encoding: .utf8)
        try OpenSSLCommand.run(
            ["pkeyutl", "-derive", "-inkey", ourPEM.path, "-peerkey", peerPEM.path, "-out", secretFile.path])
        #expect(try ours.sharedSecret(with: peer.publicKey(), cofactor: false) == Data(contentsOf: secretFile))
    }
}
