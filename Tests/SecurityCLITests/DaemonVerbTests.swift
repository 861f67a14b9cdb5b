import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The verbs on the default keychain when keychaind serves it (`KEYCHAIN_DAEMON`): each `security` is its own
/// process, so what one leaves (an unlock, a lock, an item) is what the next sees only because the daemon holds it.
@Suite("security through keychaind: the default keychain is the daemon's", .serialized, .timeLimit(.minutes(2)))
struct DaemonVerbTests {
    @Test("Unlock in one process, read in the next without a passcode; lock in one, refused in the next")
    func oneLockStateAcrossProcesses() throws {
        let daemon = try DaemonProcess()
        let home = try TestHome()
        let tool = home.tool(through: daemon)
        #expect(try tool.run(["add-generic-password", "-a", "alice", "-s", "api", "-w", "s3cret"]).status == 0)
        #expect(try tool.run(["set-keychain-password", "-o", "", "-p", "1234"]).status == 0)
        #expect(try tool.run(["lock-keychain"]).status == 0)
        let refused = try tool.run(["find-generic-password", "-a", "alice", "-w"])
        #expect(refused.status == 36)
        #expect(refused.errors.contains("keychaind at \(daemon.socketPath) is locked"))
        #expect(try tool.run(["unlock-keychain", "-p", "1234"]).status == 0)
        #expect(try tool.run(["find-generic-password", "-a", "alice", "-w"]).output == "s3cret\n")
        #expect(try tool.run(["find-generic-password", "-a", "alice", "-w", "login"]).output == "s3cret\n")
        #expect(try tool.run(["lock-keychain"]).status == 0)
        #expect(try tool.run(["find-generic-password", "-a", "alice", "-w"]).status == 36)
        // Nothing was written beside the tool: the daemon keeps the keychain.
        #expect(!FileManager.default.fileExists(atPath: home.defaultKeychain.path))
        #expect(FileManager.default.fileExists(atPath: daemon.keychainDirectory(of: getuid()).path))
    }

    @Test("Every item verb works through the daemon: add, find, dump, verify, delete")
    func itemVerbs() throws {
        let daemon = try DaemonProcess()
        let home = try TestHome()
        let tool = home.tool(through: daemon)
        #expect(try tool.run(["add-generic-password", "-a", "a", "-s", "s", "-w", "one"]).status == 0)
        #expect(try tool.run(["add-generic-password", "-U", "-a", "a", "-s", "s", "-w", "two"]).status == 0)
        #expect(
            try tool.run(["add-internet-password", "-a", "u", "-s", "example.com", "-w", "net"]).status == 0)
        let found = try tool.run(["find-generic-password", "-a", "a"])
        #expect(found.output.hasPrefix("keychain: \"keychaind at \(daemon.socketPath)\"\n"))
        #expect(try tool.run(["find-generic-password", "-a", "a", "-w"]).output == "two\n")
        #expect(try tool.run(["find-internet-password", "-s", "example.com", "-w"]).output == "net\n")
        let dump = try tool.run(["dump-keychain"])
        #expect(dump.status == 0)
        #expect(dump.output.contains("\"acct\"<blob>=\"a\"") && dump.output.contains("\"acct\"<blob>=\"u\""))
        let verified = try tool.run(["verify-keychain"])
        #expect(verified.status == 0)
        #expect(verified.output.contains("2 items checked, 0 damaged"))
        #expect(try tool.run(["delete-generic-password", "-a", "a"]).status == 0)
        #expect(try tool.run(["find-generic-password", "-a", "a"]).status == 44)
        // An explicit keychain path stays embedded, beside the daemon's.
        let path = home.keychain("local")
        #expect(try tool.run(["create-keychain", "-p", "", path]).status == 0)
        #expect(try tool.run(["find-internet-password", "-s", "example.com", path]).status == 44)
    }

    @Test("show-keychain-info names the daemon, its socket and who it sees; embedded, the directory")
    func showsTheBackend() throws {
        let daemon = try DaemonProcess()
        let home = try TestHome()
        let info = try home.tool(through: daemon).run(["show-keychain-info"])
        #expect(info.status == 0)
        #expect(info.output.hasPrefix("keychain: \"keychaind at \(daemon.socketPath)\"\nuser: uid \(getuid())\n"))
        #expect(info.output.contains("lock state: unlocked (for every process of uid \(getuid()))"))
        let json = try home.tool(through: daemon).run(["show-keychain-info", "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["backend"] as? String == "keychaind")
        #expect(object["socket"] as? String == daemon.socketPath)
        #expect(object["uid"] as? Int == Int(getuid()))
        var embedded = home.tool(through: daemon)
        embedded.environment["KEYCHAIN_DAEMON"] = "off"
        let local = try embedded.run(["show-keychain-info", "--json"])
        let localObject = try #require(
            try JSONSerialization.jsonObject(with: Data(local.output.utf8)) as? [String: Any])
        #expect(localObject["backend"] as? String == "embedded")
        #expect(localObject["keychain"] as? String == home.defaultKeychain.path)
    }

    @Test("create-keychain and delete-keychain of the daemon's keychain are refused, and nothing is lost")
    func createAndDeleteRefused() throws {
        let daemon = try DaemonProcess()
        let home = try TestHome()
        let tool = home.tool(through: daemon)
        #expect(try tool.run(["add-generic-password", "-a", "a", "-s", "s", "-w", "kept"]).status == 0)
        let created = try tool.run(["create-keychain", "-p", "x"])
        #expect(created.status == 48)
        #expect(created.errors.contains("kept by keychaind at \(daemon.socketPath)"))
        let deleted = try tool.run(["delete-keychain", "login"])
        #expect(deleted.status == Int32(UInt8(truncatingIfNeeded: -61)))
        #expect(deleted.errors.contains("cannot be deleted through the daemon"))
        #expect(try tool.run(["find-generic-password", "-a", "a", "-w"]).output == "kept\n")
    }

    @Test("Protected files on the default keychain go through the daemon's file keys")
    func protectedFiles() throws {
        let daemon = try DaemonProcess()
        let home = try TestHome()
        let tool = home.tool(through: daemon)
        let plain = home.url.appendingPathComponent("note.txt")
        let sealed = home.url.appendingPathComponent("note.protected")
        let opened = home.url.appendingPathComponent("note.opened")
        try Data("a note".utf8).write(to: plain)
        let protected = try tool.run(["protect-file", plain.path, sealed.path])
        #expect(protected.status == 0, "\(protected.errors)")
        #expect(try tool.run(["file-protection", sealed.path]).status == 0)
        // Embedded, this process has another keychain, whose keys do not open it: only the daemon's do.
        var embedded = tool
        embedded.environment["KEYCHAIN_DAEMON"] = "off"
        #expect(try embedded.run(["unprotect-file", sealed.path, opened.path]).status != 0)
        let unprotected = try tool.run(["unprotect-file", sealed.path, opened.path])
        #expect(unprotected.status == 0, "\(unprotected.errors)")
        #expect(try Data(contentsOf: opened) == Data("a note".utf8))
    }

    @Test("The daemon down: a clear error naming the socket, exit status of errSecNotAvailable")
    func daemonDown() throws {
        let daemon = try DaemonProcess()
        let home = try TestHome()
        daemon.kill()
        let result = try home.tool(through: daemon).run(["find-generic-password", "-a", "a"])
        #expect(result.status == Int32(UInt8(truncatingIfNeeded: -25291)))
        #expect(result.errors.contains(daemon.socketPath))
    }
}
