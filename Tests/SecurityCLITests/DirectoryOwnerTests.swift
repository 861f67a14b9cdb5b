import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 20, item 9: a keychain directory another user owns is refused, as OpenSSH's StrictModes refuses a `~/.ssh`
/// that is not the user's — by every verb, deleting included — unless root names that user with `--user`, which
/// then acts as that user (so every file it makes stays theirs).
@Suite("Directory owner: another user's keychain is refused unless --user names that user")
struct DirectoryOwnerTests {
    /// The user `nobody`, when this process is root and it exists.
    static let nobody: (uid: uid_t, gid: gid_t)? = {
        guard getuid() == 0, let entry = getpwnam("nobody") else { return nil }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }()

    /// Gives every file under `url` (and `url`) to `uid`.
    private func chownTree(_ url: URL, to uid: uid_t, _ gid: gid_t) throws {
        var paths = [url.path]
        if let names = FileManager.default.enumerator(atPath: url.path) {
            for case let name as String in names { paths.append(url.appendingPathComponent(name).path) }
        }
        for path in paths { try #require(lchown(path, uid, gid) == 0, "chown \(path)") }
    }

    @Test(
        "As root, KEYCHAIN_HOME of nobody is refused by every verb, delete-keychain included; --user nobody opens it",
        .enabled(if: nobody != nil, "needs root and the user nobody"))
    func otherUsersDirectory() throws {
        let (uid, gid) = try #require(Self.nobody)
        let home = try TestHome()
        // nobody must reach its directory inside the test's.
        try #require(chmod(home.url.path, 0o711) == 0)
        let directory = URL(fileURLWithPath: home.keychain("nobody"))
        var tool = home.tool
        tool.environment["KEYCHAIN_DAEMON"] = "off"
        tool.environment["KEYCHAIN_HOME"] = directory.path
        #expect(try tool.run(["add-generic-password", "-a", "a", "-s", "s", "-w", "theirs"]).status == 0)
        try chownTree(directory, to: uid, gid)

        for verb in [
            ["find-generic-password", "-a", "a", "-s", "s", "-w"], ["dump-keychain"], ["show-keychain-info"],
            ["add-generic-password", "-a", "b", "-s", "s", "-w", "mine"], ["verify-keychain"],
        ] {
            let refused = try tool.run(verb)
            #expect(refused.status == 49, "\(verb): \(refused.output)")
            #expect(refused.errors.contains("owned by uid \(uid)"), "\(verb): \(refused.errors)")
        }
        let delete = try tool.run(["delete-keychain", directory.path])
        #expect(delete.status == 49, "delete-keychain: \(delete.errors)")
        #expect(delete.errors.contains("owned by uid \(uid)"), "\(delete.errors)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("keychain.db").path))

        let theirs = try tool.run(["--user", "nobody", "find-generic-password", "-a", "a", "-s", "s", "-w"])
        #expect(theirs.status == 0 && theirs.output == "theirs\n", "\(theirs.errors)")
        #expect(
            try tool.run(["--user", "nobody", "add-generic-password", "-a", "b", "-s", "s", "-w", "2"]).status == 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            var status = stat()
            #expect(lstat(directory.appendingPathComponent(name).path, &status) == 0)
            #expect(status.st_uid == uid, "\(name) is owned by uid \(status.st_uid)")
        }
        // Another user named with --user is refused the same way: the directory is not theirs either.
        let root = try tool.run(["--user", "root", "find-generic-password", "-a", "a", "-s", "s", "-w"])
        #expect(root.status == 49, "\(root.errors)")
    }
}
