import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Root's verbs on keychaind: `--user`, and app registration. CI runs as root; run otherwise, the tests check that
/// each is refused instead (and say so).
@Suite("security administers keychaind: --user, register-app, list-apps", .serialized, .timeLimit(.minutes(2)))
struct DaemonAdministrationTests {
    /// The exit status of an `OSStatus`: its low byte.
    private func exitStatus(_ status: Int32) -> Int32 { Int32(UInt8(truncatingIfNeeded: status)) }

    @Test("--user reaches that user's keychain through the daemon, apart from root's own")
    func otherUsersKeychain() throws {
        let daemon = try DaemonProcess()
        let home = try TestHome()
        let tool = home.tool(through: daemon)
        guard getuid() == 0 else {
            print("DaemonAdministrationTests: not root, so --user is checked to be refused only")
            let refused = try tool.run(["--user", "0", "show-keychain-info"])
            #expect(refused.status == exitStatus(-34018))
            #expect(refused.errors.contains("only root may use another user's keychain"))
            return
        }
        let add = try tool.run(["--user", "4242", "add-generic-password", "-a", "a", "-s", "s", "-w", "theirs"])
        #expect(add.status == 0, "\(add.errors)")
        #expect(FileManager.default.fileExists(atPath: daemon.keychainDirectory(of: 4242).path))
        #expect(try tool.run(["find-generic-password", "-a", "a"]).status == 44)
        #expect(try tool.run(["--user=4242", "find-generic-password", "-a", "a", "-w"]).output == "theirs\n")
        let info = try tool.run(["--user", "4242", "show-keychain-info"])
        #expect(info.output.hasPrefix("keychain: \"keychaind at \(daemon.socketPath) for uid 4242\"\nuser: uid 4242\n"))
        // Root's item goes to the user's unregistered programs' group, so their own `security` would see it.
        #expect(
            try tool.run(["--user", "4242", "dump-keychain"]).output.contains(
                "\"agrp\"<blob>=\"swift-keychain.unregistered\""))
        #expect(try tool.run(["--user", "root", "find-generic-password", "-a", "a"]).status == 44)
        let unknown = try tool.run(["--user", "no-such-user-here", "show-keychain-info"])
        #expect(unknown.status == exitStatus(-50))
        #expect(unknown.errors.contains("--user no-such-user-here: no such user"))
        #expect(try tool.run(["--user"]).status == 2)
    }

    @Test(
        "Run by another user than root, --user and register-app are refused before anything is sent",
        .enabled(
            if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "skipped: needs root and setpriv to run security as uid 65534"))
    func refusedForOtherUsers() throws {
        let daemon = try DaemonProcess()
        for arguments in [
            ["--user", "0", "show-keychain-info"],
            ["register-app", "--entitlements", "/dev/null", SecurityProcess.executable],
            ["unregister-app", SecurityProcess.executable],
        ] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments =
                ["--reuid=65534", "--regid=65534", "--clear-groups", SecurityProcess.executable] + arguments
            process.environment = ["KEYCHAIN_DAEMON": daemon.socketPath, "SWIFT_BACKTRACE": "enable=no"]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == exitStatus(-34018), "\(arguments): \(text)")
            #expect(text.contains("only root may"), "\(arguments): \(text)")
        }
        #expect(!FileManager.default.fileExists(atPath: daemon.keychainDirectory(of: 0).path))
    }

    @Test("--user without a daemon: a clear error naming the socket, nothing embedded is touched")
    func otherUserWithoutDaemon() throws {
        let home = try TestHome()
        var tool = home.tool
        tool.environment["KEYCHAIN_DAEMON"] = home.url.appendingPathComponent("none.sock").path
        let result = try tool.run(["--user", "4242", "show-keychain-info"])
        if getuid() == 0 {
            #expect(result.status == exitStatus(-25291))
            #expect(result.errors.contains("no keychaind answers at \(home.url.path)/none.sock"))
        } else {
            #expect(result.errors.contains("only root"))
        }
        tool.environment["KEYCHAIN_DAEMON"] = "off"
        #expect(try tool.run(["--user", "4242", "show-keychain-info"]).status != 0)
        #expect(!FileManager.default.fileExists(atPath: home.defaultKeychain.path))
    }

    @Test("register-app, list-apps (also as JSON) and unregister-app, sent to the daemon")
    func registration() throws {
        let daemon = try DaemonProcess()
        let home = try TestHome()
        let tool = home.tool(through: daemon)
        let executable = home.url.appendingPathComponent("app")
        try ExecutableCopy.copy("/bin/true", to: executable.path)
        let entitlements = home.url.appendingPathComponent("app.entitlements")
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>application-identifier</key><string>TEAM.com.example.app</string>
            <key>keychain-access-groups</key><array><string>TEAM.shared</string></array>
            </dict></plist>
            """.utf8
        ).write(to: entitlements)
        let register = ["register-app", "--entitlements", entitlements.path, "--allow-insecure-exec", executable.path]
        guard getuid() == 0 else {
            print("DaemonAdministrationTests: not root, so register-app is checked to be refused only")
            #expect(try tool.run(register).errors.contains("only root may register apps"))
            return
        }
        let registered = try tool.run(register)
        #expect(registered.status == 0, "\(registered.errors)")
        #expect(registered.output.contains("application-identifier: TEAM.com.example.app"))
        let listed = try tool.run(["list-apps", "--json"])
        let apps = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(apps.count == 1)
        #expect(apps.first?["path"] as? String == executable.resolvingSymlinksInPath().path)
        #expect(apps.first?["allowsInsecureExecution"] as? Bool == true)
        #expect((apps.first?["accessGroups"] as? [String])?.first == "TEAM.shared")
        #expect((apps.first?["sha256"] as? String)?.count == 64)
        let missing = try tool.run(["register-app", "--entitlements", entitlements.path + ".none", executable.path])
        #expect(missing.errors.contains("cannot read the entitlements file \(entitlements.path).none"))
        #expect(try tool.run(["register-app", executable.path]).status == 2)
        #expect(try tool.run(["unregister-app", executable.path]).status == 0)
        #expect(try tool.run(["list-apps"]).output.isEmpty)
        #expect(try tool.run(["list-apps", "--json"]).output == "[]\n")
    }

    @Test("register-app without a daemon names the socket it tried")
    func registrationWithoutDaemon() throws {
        let home = try TestHome()
        var tool = home.tool
        tool.environment["KEYCHAIN_DAEMON"] = home.url.appendingPathComponent("none.sock").path
        let result = try tool.run(["list-apps"])
        #expect(result.status == exitStatus(-25291))
        #expect(result.errors.contains("no keychaind answers at \(home.url.path)/none.sock"))
    }

    @Test("help lists the new verbs, and the global usage --user")
    func help() throws {
        let home = try TestHome()
        let listing = try home.tool.run(["help"]).output
        for verb in ["register-app", "unregister-app", "list-apps"] { #expect(listing.contains("    \(verb) ")) }
        #expect(try home.tool.run([]).output.contains("--user name"))
        #expect(try home.tool.run(["help", "register-app"]).output.contains("--allow-insecure-exec"))
    }
}
