import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `backup-keychain`, `restore-keychain` and `verify-backup`: an archive restores whole into another keychain, and
/// an archive that was cut, edited, reordered or opened with the wrong passphrase restores nothing and says which.
@Suite("Encrypted backup and restore")
struct BackupVerbTests {
    static let passphrase = "correct horse battery staple"

    /// A keychain with two generic passwords in two groups (one synchronizable), an internet password, a
    /// ThisDeviceOnly password and an extractable key pair.
    private func filledHome() throws -> TestHome {
        let home = try TestHome()
        let tool = home.tool
        for arguments in [
            ["add-generic-password", "-a", "alice", "-s", "mail", "-w", "alice-secret-1"],
            [
                "add-generic-password", "-a", "bob", "-s", "mail", "-w", "bob-secret-2", "--access-group",
                "TEAM.shared",
                "--synchronizable",
            ],
            ["add-internet-password", "-a", "carol", "-s", "example.com", "-w", "carol-secret-3"],
            [
                "add-generic-password", "-a", "dave", "-s", "device", "-w", "dave-secret-4", "--accessibility",
                "whenUnlockedThisDeviceOnly",
            ],
            ["create-keypair", "--extractable", "--tag", "backup.key", "Backup key"],
        ] {
            let result = try tool.run(arguments)
            try #require(result.status == 0, "\(arguments): \(result.errors)")
        }
        return home
    }

    private func backup(_ home: TestHome, to file: URL) throws {
        let result = try home.tool.run(
            ["backup-keychain", "-o", file.path, "--passphrase-fd", "0"], input: Self.passphrase)
        try #require(result.status == 0, "\(result.errors)")
        #expect(result.errors.contains("5 items backed up; 1 left on this device"), "\(result.errors)")
    }

    private func restore(_ home: TestHome, _ file: URL, _ extra: [String] = [], passphrase: String = passphrase)
        throws -> SecurityProcess.Result
    {
        try home.tool.run(["restore-keychain", "--passphrase-fd", "0"] + extra + [file.path], input: passphrase)
    }

    @Test(
        "An archive restores whole into an empty keychain: passwords, groups, synchronizable, keys; not ThisDeviceOnly")
    func roundTrip() throws {
        let source = try filledHome()
        let directory = try TemporaryDirectory()
        let file = directory.file("keychain.skb")
        try backup(source, to: file)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Nothing of an item is in clear: no secret, no account, no service.
        let bytes = try Data(contentsOf: file)
        for clear in [
            "alice-secret-1", "bob-secret-2", "carol-secret-3", "alice", "mail", "example.com", "TEAM.shared",
        ] {
            #expect(bytes.range(of: Data(clear.utf8)) == nil, "\(clear) is in clear in the archive")
        }
        let verified = try source.tool.run(
            ["verify-backup", "--passphrase-fd", "0", file.path], input: Self.passphrase)
        #expect(verified.status == 0 && verified.output.contains(": 5 items, made "), "\(verified.output)")
        let target = try TestHome()
        let restored = try restore(target, file)
        #expect(restored.status == 0, "\(restored.errors)")
        let tool = target.tool
        #expect(try tool.run(["find-generic-password", "-a", "alice", "-w"]).output == "alice-secret-1\n")
        let bob = try tool.run(["find-generic-password", "-a", "bob", "--json"]).output
        #expect(bob.contains("TEAM.shared") && bob.contains("\"sync\":true"), "\(bob)")
        #expect(try tool.run(["find-internet-password", "-a", "carol", "-w"]).output == "carol-secret-3\n")
        #expect(try tool.run(["find-generic-password", "-a", "dave"]).status == 44, "ThisDeviceOnly stays behind")
        #expect(try tool.run(["dump-keychain"]).output.contains("\"atag\"<blob>=\"backup.key\""))
        // The same archive again: every item conflicts, nothing is written, the conflicts are named.
        let again = try restore(target, file)
        #expect(again.status == 45)
        #expect(again.errors.contains("genp acct \"alice\", svce \"mail\""), "\(again.errors)")
        // To standard output, the same archive format.
        let piped = try source.tool.run(["backup-keychain", "-o", "-", "--passphrase-fd", "0"], input: Self.passphrase)
        #expect(piped.status == 0 && piped.output.utf8.starts(with: "SKBACKUP".utf8))
    }

    @Test("A cut, edited or reordered archive, or the wrong passphrase, restores nothing and says which")
    func damagedArchives() throws {
        let source = try filledHome()
        let directory = try TemporaryDirectory()
        let file = directory.file("keychain.skb")
        try backup(source, to: file)
        let good = try Data(contentsOf: file)
        let header = 93
        // The messages' frames: (offset, length with the frame).
        var frames: [(Int, Int)] = []
        var offset = header
        while offset < good.count {
            let length =
                Int(good[offset]) | Int(good[offset + 1]) << 8 | Int(good[offset + 2]) << 16
                | Int(good[offset + 3]) << 24
            frames.append((offset, 4 + length))
            offset += 4 + length
        }
        try #require(frames.count == 6, "five items and the final message")
        var swapped = Data(good.prefix(header))
        swapped += good[frames[1].0..<frames[1].0 + frames[1].1]
        swapped += good[frames[0].0..<frames[0].0 + frames[0].1]
        swapped += good[frames[2].0...]
        var flippedHeader = good
        flippedHeader[20] ^= 1
        var flippedItem = good
        flippedItem[frames[3].0 + 10] ^= 1
        let cases: [(String, Data, String, String)] = [
            ("truncated", good.prefix(frames[5].0), Self.passphrase, "truncated"),
            ("header", flippedHeader, Self.passphrase, "wrong passphrase or damaged header"),
            ("item", flippedItem, Self.passphrase, "damaged or reordered at item 4"),
            ("swapped", swapped, Self.passphrase, "damaged or reordered at item 1"),
            ("passphrase", good, "wrong horse", "wrong passphrase"),
            ("dropped final", good.prefix(frames[5].0) + Data(), Self.passphrase, "truncated"),
        ]
        for (name, bytes, passphrase, reason) in cases {
            let damaged = directory.file("\(name).skb")
            try bytes.write(to: damaged)
            let target = try TestHome()
            let restored = try restore(target, damaged, passphrase: passphrase)
            #expect(restored.status != 0, "\(name) restored")
            #expect(restored.errors.contains(reason), "\(name): \(restored.errors)")
            #expect(try target.tool.run(["find-generic-password", "-a", "alice"]).status == 44, "\(name) wrote items")
            let verified = try target.tool.run(
                ["verify-backup", "--passphrase-fd", "0", damaged.path], input: passphrase)
            #expect(verified.status != 0 && verified.errors.contains(reason), "\(name): \(verified.errors)")
        }
    }

    @Test("Conflicts: keep the stored item, replace it, or keep the newer")
    func conflicts() throws {
        let source = try filledHome()
        let directory = try TemporaryDirectory()
        let file = directory.file("keychain.skb")
        try backup(source, to: file)
        for (policy, expected) in [
            ("keep", "changed-later"), ("replace", "alice-secret-1"), ("newer", "changed-later"),
        ] {
            let target = try TestHome()
            #expect(
                try target.tool.run(["add-generic-password", "-a", "alice", "-s", "mail", "-w", "changed-later"]).status
                    == 0)
            let restored = try restore(target, file, ["--on-conflict", policy])
            #expect(restored.status == 0, "\(policy): \(restored.errors)")
            #expect(
                try target.tool.run(["find-generic-password", "-a", "alice", "-w"]).output == expected + "\n",
                "\(policy)")
            #expect(try target.tool.run(["find-internet-password", "-a", "carol", "-w"]).output == "carol-secret-3\n")
        }
        #expect(try TestHome().tool.run(["restore-keychain", "--on-conflict", "merge", file.path]).status == 2)
    }

    /// Runs `security arguments…` with `passphrase` readable on file descriptor 3 (not standard input, which stays
    /// empty), returning the status, standard output's bytes and standard error.
    private func runWithPassphraseOnFD3(_ home: TestHome, _ arguments: [String], passphrase: String) throws
        -> SecurityProcess.RawResult
    {
        let stdin = try ChildPipe()
        let stdout = try ChildPipe()
        let stderr = try ChildPipe()
        let secret = try ChildPipe()
        let child = try Spawn.start(
            SecurityProcess.executable, arguments, environment: home.tool.processEnvironment,
            descriptors: [stdin.reading, stdout.writing, stderr.writing, secret.reading], controllingTerminal: nil)
        stdin.closeReading()
        stdout.closeWriting()
        stderr.closeWriting()
        secret.closeReading()
        stdin.closeWriting()
        secret.writeAll(Array(passphrase.utf8))
        secret.closeWriting()
        let errors = PipeReader(stderr)
        let output = stdout.readAll()
        let errorText = String(decoding: errors.wait(), as: UTF8.self)
        return SecurityProcess.RawResult(status: try Spawn.wait(child), output: output, errors: errorText)
    }

    @Test("backup-keychain -o - writes the archive to standard output; --passphrase-fd 3 reads the passphrase there")
    func standardOutputAndDescriptor() throws {
        let source = try filledHome()
        let written = try runWithPassphraseOnFD3(
            source, ["backup-keychain", "-o", "-", "--passphrase-fd", "3"], passphrase: Self.passphrase)
        #expect(written.status == 0, "\(written.errors)")
        #expect(written.output.starts(with: Array("SKBACKUP".utf8)))
        for secret in ["alice-secret-1", "bob-secret-2", "carol-secret-3"] {
            #expect(Data(written.output).range(of: Data(secret.utf8)) == nil, "\(secret) is in clear")
        }
        let directory = try TemporaryDirectory()
        let file = directory.file("piped.skb")
        try Data(written.output).write(to: file)
        let verified = try runWithPassphraseOnFD3(
            source, ["verify-backup", "--passphrase-fd", "3", file.path], passphrase: Self.passphrase)
        #expect(verified.status == 0, "\(verified.errors)")
        #expect(String(decoding: verified.output, as: UTF8.self).contains(": 5 items, made "))
        let target = try TestHome()
        let restored = try runWithPassphraseOnFD3(
            target, ["restore-keychain", "--passphrase-fd", "3", file.path], passphrase: Self.passphrase)
        #expect(restored.status == 0, "\(restored.errors)")
        #expect(try target.tool.run(["find-generic-password", "-a", "alice", "-w"]).output == "alice-secret-1\n")
        let wrong = try runWithPassphraseOnFD3(
            target, ["verify-backup", "--passphrase-fd", "3", file.path], passphrase: "wrong horse")
        #expect(wrong.status != 0 && wrong.errors.contains("wrong passphrase or damaged header"), "\(wrong.errors)")
        #expect(try TestHome().tool.run(["backup-keychain", "--passphrase-fd", "x", "-o", "-"]).status == 2)
    }

    @Test("A refused restore (conflicts, bytes appended) leaves the target keychain exactly as it was")
    func refusedRestoreChangesNothing() throws {
        let source = try filledHome()
        let directory = try TemporaryDirectory()
        let file = directory.file("keychain.skb")
        try backup(source, to: file)
        let target = try TestHome()
        #expect(try target.tool.run(["add-generic-password", "-a", "alice", "-s", "mail", "-w", "mine"]).status == 0)
        #expect(try target.tool.run(["add-generic-password", "-a", "zoe", "-s", "other", "-w", "zoe's"]).status == 0)
        let before = try target.tool.run(["dump-keychain", "-d"]).output
        let conflicting = try restore(target, file)
        #expect(conflicting.status == 45)
        #expect(conflicting.errors.contains("1 archived item(s) are stored already"), "\(conflicting.errors)")
        #expect(!conflicting.errors.contains("carol"), "\(conflicting.errors)")
        #expect(try target.tool.run(["dump-keychain", "-d"]).output == before, "the refused restore wrote")
        let appended = directory.file("appended.skb")
        try (try Data(contentsOf: file) + Data("trailing".utf8)).write(to: appended)
        let extended = try restore(target, appended, ["--on-conflict", "replace"])
        #expect(extended.status != 0 && extended.errors.contains("after its final message"), "\(extended.errors)")
        #expect(try target.tool.run(["dump-keychain", "-d"]).output == before, "the damaged restore wrote")
    }

    @Test("On a terminal, backup-keychain asks for the passphrase twice without echo, and again when they differ")
    func terminalPassphrase() throws {
        let home = try filledHome()
        let directory = try TemporaryDirectory()
        let file = directory.file("typed.skb")
        let session = try TerminalSession(
            ["backup-keychain", "-o", file.path], process: home.tool, errorsOnTerminal: true)
        try session.waitFor("Backup passphrase: ")
        session.type("first typing")
        try session.waitFor("Retype the backup passphrase: ")
        session.type("second typing")
        try session.waitFor("Backup passphrase: ")
        session.type(Self.passphrase)
        try session.waitFor("Retype the backup passphrase: ")
        session.type(Self.passphrase)
        try session.waitFor("items backed up")
        let result = try session.finish()
        #expect(result.status == 0, "\(result.errors) \(session.screen)")
        #expect(!session.screen.contains("horse") && !session.screen.contains("typing"), "echoed: \(session.screen)")
        // Progress on a terminal only: shown here, never in a pipe (the other tests read standard error whole).
        #expect(session.screen.contains("backed up 5 of 5 items"), "\(session.screen)")
        let piped = try home.tool.run(
            ["backup-keychain", "-o", directory.file("piped.skb").path, "--passphrase-fd", "0"], input: Self.passphrase)
        #expect(!piped.errors.contains("backed up 5 of 5"), "\(piped.errors)")
        let verified = try home.tool.run(["verify-backup", "--passphrase-fd", "0", file.path], input: Self.passphrase)
        #expect(verified.status == 0, "\(verified.errors)")
    }
}

/// Progress on long work: on a terminal only, rate-limited, erased at the end.
@Suite("Progress lines: protect-file and unprotect-file of a large file show done of total, rate and time left")
struct ProgressLineTests {
    @Test("On a terminal the line shows bytes done of the total and is erased; in a pipe nothing is written")
    func fileProgress() throws {
        let home = try TestHome()
        let tool = home.tool
        let directory = try TemporaryDirectory()
        let plain = directory.file("large")
        // 48 MiB: long enough for a few redraws on any machine.
        try Data(repeating: 0x5A, count: 48 << 20).write(to: plain)
        let protected = directory.file("large.protected")
        let session = try TerminalSession(
            ["protect-file", plain.path, protected.path], process: tool, errorsOnTerminal: true)
        let result = try session.finish()
        #expect(result.status == 0, "\(result.errors) \(session.screen)")
        #expect(session.screen.contains("protected 48.0 MiB of 48.0 MiB"), "\(session.screen)")
        #expect(session.screen.hasSuffix("\r\u{1B}[K") || session.screen.contains("\r\u{1B}[K"), "never erased")
        let back = try TerminalSession(
            ["unprotect-file", protected.path, directory.file("back").path], process: tool, errorsOnTerminal: true)
        #expect(try back.finish().status == 0)
        #expect(back.screen.contains("unprotected 48.0 MiB of 48.0 MiB"), "\(back.screen)")
        #expect(try Data(contentsOf: directory.file("back")) == Data(contentsOf: plain))
        let piped = try tool.run(["protect-file", plain.path, directory.file("piped").path])
        #expect(piped.status == 0 && piped.errors.isEmpty, "a pipe got progress: \(piped.errors)")
    }
}
