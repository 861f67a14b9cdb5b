import Foundation
import Testing

@Suite("Protected-file verbs: protect-file, unprotect-file, file-protection")
struct FileProtectionVerbTests {
    private func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    private func contents(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    @Test(
        "Each class round-trips through protect-file and unprotect-file, and file-protection names it",
        arguments: ["none", "complete", "completeUnlessOpen", "completeUntilFirstUserAuthentication"])
    func roundTrip(protection: String) throws {
        let home = try TestHome()
        let plain = home.keychain("plain")
        let secret = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try write(secret, to: plain)
        let protected = home.keychain("protected")
        let protect = try home.tool.run(["protect-file", "-c", protection, plain, protected])
        #expect(protect.status == 0, "\(protect.errors)")
        let stored = try #require(contents(protected))
        #expect(stored.range(of: Data(secret.prefix(64))) == nil, "the plaintext is not in the protected file")
        let mode = try FileManager.default.attributesOfItem(atPath: protected)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let shown = try home.tool.run(["file-protection", protected])
        #expect(shown.status == 0 && shown.output == "\(protection)\n")
        let json = try home.tool.run(["file-protection", "--json", protected])
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: String]
        #expect(object == ["file": protected, "protection": protection])

        let restored = home.keychain("restored")
        #expect(try home.tool.run(["unprotect-file", protected, restored]).status == 0)
        #expect(contents(restored) == Data(secret))
    }

    @Test("Without -c a file gets completeUntilFirstUserAuthentication, iOS's default")
    func defaultClass() throws {
        let home = try TestHome()
        let plain = home.keychain("plain")
        try write([1, 2, 3], to: plain)
        #expect(try home.tool.run(["protect-file", plain, home.keychain("out")]).status == 0)
        #expect(
            try home.tool.run(["file-protection", home.keychain("out")]).output
                == "completeUntilFirstUserAuthentication\n")
    }

    @Test("A locked keychain without a terminal is status 36 and leaves no output; unlocked in a session it works")
    func lockedKeychain() throws {
        let home = try TestHome()
        let keychain = try home.makeLockedKeychain("locked", passcode: "1234")
        let plain = home.keychain("plain")
        try write([9, 8, 7], to: plain)
        let output = home.keychain("out")
        let refused = try home.tool.run(["protect-file", "-c", "complete", "-k", keychain, plain, output])
        #expect(refused.status == 36)
        #expect(refused.errors.contains("protect-file"))
        #expect(!FileManager.default.fileExists(atPath: output))
        // completeUnlessOpen can be created while locked, and its class read, but not its contents.
        #expect(
            try home.tool.run(["protect-file", "-c", "completeUnlessOpen", "-k", keychain, plain, output]).status == 0)
        #expect(try home.tool.run(["file-protection", "-k", keychain, output]).output == "completeUnlessOpen\n")
        #expect(try home.tool.run(["unprotect-file", "-k", keychain, output, home.keychain("back")]).status == 36)

        let session = try home.tool.run(
            ["-i"],
            input:
                "unlock-keychain -p 1234 \(keychain)\nunprotect-file -k \(keychain) \(output) \(home.keychain("back"))\n"
        )
        #expect(session.status == 0, "\(session.errors)")
        #expect(contents(home.keychain("back")) == Data([9, 8, 7]))
    }

    @Test("A damaged file is status 93 (errSecDecode) and writes nothing; bad arguments are usage errors")
    func failures() throws {
        let home = try TestHome()
        let plain = home.keychain("plain")
        try write(Array(repeating: 5, count: 5000), to: plain)
        let protected = home.keychain("protected")
        #expect(try home.tool.run(["protect-file", "-c", "none", plain, protected]).status == 0)
        var damaged = try #require(contents(protected))
        damaged[damaged.count - 10] ^= 1
        try damaged.write(to: URL(fileURLWithPath: protected))
        let result = try home.tool.run(["unprotect-file", protected, home.keychain("out")])
        #expect(result.status == 93)
        #expect(result.errors.contains("Unable to decode the provided data."))
        #expect(!FileManager.default.fileExists(atPath: home.keychain("out")))

        let badClass = try home.tool.run(["protect-file", "-c", "sometimes", plain, home.keychain("x")])
        #expect(badClass.status == 2 && badClass.errors.contains("\"sometimes\""))
        #expect(try home.tool.run(["unprotect-file", protected]).status == 2)
        #expect(try home.tool.run(["file-protection"]).status == 2)
        let missing = try home.tool.run(["unprotect-file", home.keychain("nothing"), home.keychain("out")])
        #expect(missing.status != 0 && missing.errors.contains("nothing"))
    }
}
