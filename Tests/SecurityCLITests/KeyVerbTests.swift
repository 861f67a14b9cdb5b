import Foundation
import TestSupport
import Testing

/// The key and certificate verbs, checked against files and answers of the `openssl` command.
@Suite(
    "Key and certificate verbs: create-keypair, import, export, find-certificate, find-identity, delete-*",
    .enabled(if: OpenSSLCommand.isInstalled, "no openssl command"))
struct KeyVerbTests {

    /// A PKCS#12 file (passphrase `pw`) with a P-256 identity for `name`, and its certificate and key PEM files.
    private func identityFile(_ name: String, in directory: TemporaryDirectory) throws -> (
        p12: String, cert: String, key: String
    ) {
        let key = directory.file("\(name).key").path
        let certificate = directory.file("\(name).pem").path
        let file = directory.file("\(name).p12").path
        try OpenSSLCommand.run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out",
            certificate, "-days", "1", "-subj", "/CN=\(name)/emailAddress=\(name.lowercased())@example.com",
        ])
        try OpenSSLCommand.run([
            "pkcs12", "-export", "-inkey", key, "-in", certificate, "-passout", "pass:pw", "-out", file,
        ])
        return (file, certificate, key)
    }

    @Test("create-keypair makes a pair whose public key openssl reads; the private key is never printed")
    func createKeypair() throws {
        let home = try TestHome()
        let tool = home.tool
        let made = try tool.run(["create-keypair", "--tag", "com.example.k", "--json", "Signing"])
        #expect(made.status == 0, "\(made.errors)")
        #expect(made.output.contains("\"private\":true") && made.output.contains("\"extractable\":false"))
        #expect(try tool.run(["create-keypair", "-a", "dsa"]).status == 2)
        #expect(try tool.run(["create-keypair", "-a", "ec", "-s", "255"]).status != 0)
        let directory = try TemporaryDirectory()
        let exported = directory.file("public.pem").path
        #expect(try tool.run(["export", "-t", "pubKeys", "-o", exported]).status == 0)
        let text = try OpenSSLCommand.run(["pkey", "-pubin", "-in", exported, "-noout", "-text"])
        #expect(text.contains("NIST CURVE: P-256") || text.contains("prime256v1"))
        #expect(try tool.run(["export", "-t", "allKeys"]).status != 0, "private keys stay in the keychain")
        let dump = try tool.run(["dump-keychain", "-d"])
        #expect(dump.output.contains("class: \"keys\"") && dump.output.contains("\"atag\"<blob>=\"com.example.k\""))
    }

    @Test("import a PKCS#12 file: all or nothing, listed by find-identity with openssl's SHA-1, found, deleted")
    func importAndFind() throws {
        let home = try TestHome()
        let tool = home.tool
        let directory = try TemporaryDirectory()
        let alice = try identityFile("Alice", in: directory)
        // A wrong passphrase stores nothing.
        let refused = try tool.run(["import", alice.p12, "-P", "wrong"])
        #expect(refused.status != 0)
        #expect(try tool.run(["find-certificate", "-a"]).status != 0)
        #expect(try tool.run(["import", alice.p12, "-P", "pw", "-x"]).output == "1 identity imported.\n")
        let fingerprint = try OpenSSLCommand.run(["x509", "-in", alice.cert, "-noout", "-fingerprint", "-sha1"])
            .split(separator: "=").last.map { $0.replacingOccurrences(of: ":", with: "") }?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let identities = try tool.run(["find-identity", "-v"])
        #expect(identities.output.contains("1) \(fingerprint ?? "?") \"Alice\""), "\(identities.output)")
        #expect(identities.output.contains("1 identities found"))
        // find-certificate -p prints the certificate openssl made, -Z its hashes, -e matches the address.
        let pem = try tool.run(["find-certificate", "-c", "Alice", "-p"])
        let ownPEM = try String(contentsOfFile: alice.cert, encoding: .utf8)
        #expect(pem.output == ownPEM, "\(pem.output)")
        #expect(
            try tool.run(["find-certificate", "-Z", "-e", "alice@example.com"]).output.contains(
                "SHA-1 hash: \(fingerprint ?? "?")"))
        #expect(try tool.run(["find-certificate", "-e", "bob@example.com"]).status == 44)
        // The imported private key's bytes appear in no output.
        let keyText = try OpenSSLCommand.run(["pkey", "-in", alice.key, "-noout", "-text"])
        let scalarLines = keyText.components(separatedBy: "pub:").first ?? ""
        let scalarHex = scalarLines.components(separatedBy: "priv:").last?.filter(\.isHexDigit) ?? ""
        let dump =
            try tool.run(["dump-keychain", "-d", "--json"]).output + (try tool.run(["dump-keychain", "-d"]).output)
        #expect(scalarHex.count == 64 && !dump.uppercased().contains(scalarHex.uppercased()))
        // A second identity; delete-identity removes the certificate and its key.
        let bob = try identityFile("Bob", in: directory)
        #expect(try tool.run(["import", bob.p12, "-P", "pw"]).status == 0)
        #expect(try tool.run(["find-identity"]).output.contains("2 identities found"))
        #expect(try tool.run(["delete-identity", "-c", "Bob"]).status == 0)
        #expect(try tool.run(["find-identity"]).output.contains("1 identities found"))
        #expect(try tool.run(["find-certificate", "-c", "Bob"]).status == 44)
        // delete-certificate without -t leaves the key, so Alice is no identity afterwards.
        #expect(try tool.run(["delete-certificate", "-c", "Alice"]).status == 0)
        #expect(try tool.run(["find-identity"]).output.contains("0 identities found"))
        // Certificates alone, from PEM.
        #expect(try tool.run(["import", alice.cert]).output == "1 certificate imported.\n")
        #expect(try tool.run(["export", "-t", "certs"]).output == ownPEM)
    }
}
