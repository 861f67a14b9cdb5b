import Foundation
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Reliability: the keychain directory is checked before it is trusted")
struct DirectoryChecksTests {
    /// `nobody`: a user other than the one running the tests.
    private let otherUser: uid_t = 65534

    private func open(_ url: URL) throws -> Engine {
        try Engine(storage: .directory(url), options: EngineOptions(passcodeCost: .minimum))
    }

    /// The error of opening `url`, which must be refused as invalid with a message containing `fix`.
    private func expectRefused(
        _ url: URL, fix: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try open(url)
            Issue.record("\(url.path) was used", sourceLocation: sourceLocation)
        } catch let error as EngineError {
            #expect(error.code == .invalidKeychain, "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(fix), "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    private func mode(_ path: String) -> mode_t {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o7777 : 0
    }

    @Test("Reliability 6: a group- or world-writable keychain directory is refused, and nothing is created in it")
    func writableDirectory() throws {
        let temporary = try TemporaryDirectory()
        for mode: mode_t in [0o777, 0o770, 0o702] {
            let url = temporary.file("keychain-\(String(mode, radix: 8))")
            #expect(mkdir(url.path, 0o700) == 0)
            #expect(chmod(url.path, mode) == 0)
            expectRefused(url, fix: "run chmod 700 \(url.path)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).isEmpty)
        }
    }

    @Test(
        "Reliability 6: a keychain directory owned by another user is refused",
        .enabled(if: geteuid() == 0, "skipped: giving a directory to another user needs root"))
    func directoryOfAnotherUser() throws {
        let temporary = try TemporaryDirectory()
        let url = temporary.keychain
        _ = try open(url)
        #expect(chown(url.path, otherUser, gid_t(otherUser)) == 0)
        expectRefused(url, fix: "run chown \(geteuid()) \(url.path)")
    }

    @Test("Reliability 6: a database, WAL, shared-memory file or device key others can read or own is refused")
    func exposedFiles() throws {
        let temporary = try TemporaryDirectory()
        let url = temporary.keychain
        try open(url).addPassword("a", "1")
        for name in ["keychain.db", "keychain.db-wal", "keychain.db-shm", "device.key"] {
            let path = url.appendingPathComponent(name).path
            try #require(FileManager.default.fileExists(atPath: path), "\(name) exists")
            for mode: mode_t in [0o644, 0o640, 0o606] {
                #expect(chmod(path, mode) == 0)
                expectRefused(url, fix: "run chmod 600 \(path)")
            }
            #expect(chmod(path, 0o600) == 0)
            if geteuid() == 0 {
                #expect(chown(path, otherUser, gid_t(otherUser)) == 0)
                expectRefused(url, fix: "run chown 0 \(path)")
                #expect(chown(path, 0, 0) == 0)
            }
        }
        #expect(try open(url).password("a") == "1")
    }

    @Test("Reliability 6: a symbolic link to a sound directory is fine; to an unsafe one it is refused")
    func symbolicLinks() throws {
        let temporary = try TemporaryDirectory()
        let real = temporary.file("real")
        try open(real).addPassword("a", "1")
        let link = temporary.file("link")
        #expect(symlink(real.path, link.path) == 0)
        #expect(try open(link).password("a") == "1")
        #expect(chmod(real.path, 0o777) == 0)
        expectRefused(link, fix: "run chmod 700 \(link.path)")
    }

    @Test("Reliability 6: missing parent directories are created 0700 whatever the umask", arguments: ["0", "0277"])
    func parentsCreatedPrivate(umask: String) throws {
        let temporary = try TemporaryDirectory()
        let url = temporary.file("a/b/keychain")
        // The umask is per process: set it in a child, not in the test runner others share.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", "umask \(umask) && exec \"$0\" writer \"$1\" 1", StressProcess.executable.path, url.path,
        ]
        process.environment = ["SWIFT_BACKTRACE": "enable=no"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(message)")
        for path in [temporary.file("a"), temporary.file("a/b"), url].map(\.path) {
            #expect(mode(path) == 0o700, "\(path) is \(String(mode(path), radix: 8))")
        }
        #expect(KeychainBackends.keychainExists(in: url))
    }
}
