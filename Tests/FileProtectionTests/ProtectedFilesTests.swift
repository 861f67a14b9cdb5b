import FileProtection
import Foundation
import KeychainCore
import TestSupport
import Testing

@Suite("Protected files: round trips, format, atomic writes, class changes")
struct ProtectedFilesTests {
    @Test("Every class round-trips data of every size around the chunk boundaries")
    func roundTrips() throws {
        let fixture = try FileFixture(chunkByteCount: 1024)
        for protection in FileProtectionClass.allCases {
            for size in [0, 1, 1023, 1024, 1025, 5000, 3 * 1024] {
                let url = fixture.file("\(protection)-\(size)")
                let data = sampleData(size)
                try fixture.files.write(data, to: url, protection: protection)
                #expect(try fixture.files.contents(of: url) == data, "\(protection), \(size) bytes")
                #expect(try fixture.files.protection(of: url) == protection)
            }
        }
    }

    @Test("The file holds no plaintext, is mode 0600, and its size is header plus sealed chunks")
    func atRest() throws {
        let fixture = try FileFixture()
        let url = fixture.file("secret")
        let secret = Data(String(repeating: "attack at dawn; ", count: 10_000).utf8)
        try fixture.files.write(secret, to: url, protection: .none)
        let stored = try bytes(of: url)
        #expect(stored.starts(with: Data("SKPF".utf8)))
        #expect(stored.range(of: Data("attack at dawn".utf8)) == nil)
        #expect(try mode(of: url) == 0o600)
        let chunks = (secret.count + ProtectedFiles.defaultChunkByteCount - 1) / ProtectedFiles.defaultChunkByteCount
        #expect(stored.count == 172 + secret.count + 17 * chunks)
        // The same data written twice gives unrelated files (a fresh key, identifier and nonce each time).
        try fixture.files.write(secret, to: fixture.file("again"), protection: .none)
        let again = try bytes(of: fixture.file("again"))
        #expect(again.dropFirst(172).prefix(64) != stored.dropFirst(172).prefix(64))
    }

    @Test("A file copied elsewhere is unreadable without its keychain; with it, readable from anywhere")
    func copiedFile() throws {
        let fixture = try FileFixture()
        let url = fixture.file("f")
        try fixture.files.write(sampleData(5000), to: url, protection: .none)
        let elsewhere = try TemporaryDirectory()
        let copy = elsewhere.file("copy")
        try FileManager.default.copyItem(at: url, to: copy)
        #expect(try fixture.files.contents(of: copy) == sampleData(5000))
        let stranger = try FileFixture()
        #expect(status { _ = try stranger.files.contents(of: copy) } == FileProtectionError.decodeStatus)
    }

    @Test("A write replaces the destination atomically and leaves no temporary file; a 0644 umask changes nothing")
    func atomicReplace() throws {
        let fixture = try FileFixture()
        let url = fixture.file("f")
        try Data("plain old file".utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        try fixture.files.write(sampleData(100), to: url, protection: .completeUnlessOpen)
        #expect(try mode(of: url) == 0o600)
        #expect(try fixture.files.contents(of: url) == sampleData(100))
        #expect(try fixture.entries() == ["f"])
    }

    @Test("A write into a missing directory is an I/O error naming the path; nothing is created")
    func missingDirectory() throws {
        let fixture = try FileFixture()
        let url = fixture.file("missing/f")
        let failure = error { try fixture.files.write(Data("x".utf8), to: url, protection: .none) }
        #expect(failure?.status == FileProtectionError.ioError.status)
        #expect(failure?.message.contains(fixture.file("missing").path) == true)
        #expect(
            status { _ = try fixture.files.contents(of: fixture.file("nothing")) } == FileProtectionError.ioError.status
        )
        #expect(
            status { _ = try fixture.files.contents(of: fixture.directory.url) } == FileProtectionError.ioError.status)
        #expect(try fixture.entries().isEmpty)
    }

    @Test("Protect and unprotect stream plain files, including in place")
    func protectAndUnprotect() throws {
        let fixture = try FileFixture(chunkByteCount: 4096)
        let plain = fixture.file("plain")
        let data = sampleData(50_000)
        try data.write(to: plain)
        for protection in FileProtectionClass.allCases {
            let protected = fixture.file("protected-\(protection)")
            try fixture.files.protect(contentsOf: plain, to: protected, protection: protection)
            #expect(try fixture.files.protection(of: protected) == protection)
            let back = fixture.file("back-\(protection)")
            try fixture.files.unprotect(contentsOf: protected, to: back)
            #expect(try bytes(of: back) == data)
            #expect(try mode(of: back) == 0o600)
        }
        try fixture.files.protect(contentsOf: plain, to: plain, protection: .complete)
        #expect(try fixture.files.contents(of: plain) == data)
        try fixture.files.unprotect(contentsOf: plain, to: plain)
        #expect(try bytes(of: plain) == data)
        #expect(
            status { try fixture.files.protect(contentsOf: fixture.file("none"), to: plain, protection: .none) }
                == FileProtectionError.ioError.status)
        #expect(try bytes(of: plain) == data)
    }

    @Test("Changing the class rewraps the key: the body is byte for byte the same, only the header changes")
    func rewrapKeepsBody() throws {
        let fixture = try FileFixture(.unlocked, chunkByteCount: 1024)
        let url = fixture.file("f")
        let data = sampleData(10_000)
        try fixture.files.write(data, to: url, protection: .none)
        var previous = try bytes(of: url)
        for protection in [
            FileProtectionClass.completeUnlessOpen, .complete, .completeUntilFirstUserAuthentication, .none,
        ] {
            try fixture.files.setProtection(protection, of: url)
            let current = try bytes(of: url)
            let previousHeader = previous[42] == 104 ? 204 : 172
            let currentHeader = current[42] == 104 ? 204 : 172
            #expect(current.dropFirst(currentHeader) == previous.dropFirst(previousHeader), "body unchanged")
            #expect(current.prefix(5) == previous.prefix(5) && current[5] != previous[5])
            #expect(try fixture.files.contents(of: url) == data)
            #expect(try fixture.files.protection(of: url) == protection)
            #expect(try mode(of: url) == 0o600)
            previous = current
        }
        // Setting the class a file already has changes nothing.
        try fixture.files.setProtection(.none, of: url)
        #expect(try bytes(of: url) == previous)
        // A CompleteUnlessOpen file moved to Complete is no longer readable while locked, and back.
        try fixture.files.setProtection(.completeUnlessOpen, of: url)
        fixture.engine.lock()
        #expect(status { _ = try fixture.files.contents(of: url) } == FileProtectionError.lockedStatus)
        try fixture.engine.unlock(passcode: FileFixture.passcode)
        #expect(try fixture.files.contents(of: url) == data)
    }

    @Test("Chunk sizes: powers of two from 1 KiB to 1 MiB; a reader takes any of them")
    func chunkSizes() throws {
        let fixture = try FileFixture()
        for size in [0, 512, 1000, 3000, 2 << 20] {
            #expect(throws: FileProtectionError.param) {
                _ = try ProtectedFiles(backend: fixture.engine, chunkByteCount: size)
            }
        }
        let small = try ProtectedFiles(backend: fixture.engine, chunkByteCount: 1024)
        let large = try ProtectedFiles(backend: fixture.engine, chunkByteCount: 1 << 20)
        try small.write(sampleData(5000), to: fixture.file("small"), protection: .none)
        try large.write(sampleData(5000), to: fixture.file("large"), protection: .none)
        #expect(try large.contents(of: fixture.file("small")) == sampleData(5000))
        #expect(try small.contents(of: fixture.file("large")) == sampleData(5000))
    }

    @Test("ProtectedFiles(directory:) opens the keychain in a directory, creating it")
    func openByDirectory() throws {
        let directory = try TemporaryDirectory()
        let files = try ProtectedFiles(directory: directory.file("keychain"))
        try files.write(Data("x".utf8), to: directory.file("f"), protection: .complete)
        let again = try ProtectedFiles(directory: directory.file("keychain"))
        #expect(try again.contents(of: directory.file("f")) == Data("x".utf8))
        let failure = error { _ = try ProtectedFiles(directory: directory.file("f")) }
        #expect(failure?.message.contains(directory.file("f").path) == true)
    }
}
